// The sweep of the direct forward and backward-data passes: a grid of output pixels, each tile of
// a row's pixels times vectors of output channels summed in registers over its receptive field's
// taps in a zero-padded input, templated on the arithmetic (Float32Math, BFloat16Math) and the
// output's element type. The forward pass sweeps its whole output; backward-data sweeps each
// phase of dx (conv2d_direct_phases.h). Internal to the direct kernels' files.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "lib/kernels/conv2d.h"
#include "lib/kernels/conv2d_direct_tiles.h"

namespace xtrain::kernels::direct {

// One forward tile: pixels along each of one or two output rows (two where a map is at most half
// a tile wide, so that each weight vector loaded still feeds a whole tile of pixels), times
// vectors of output channels of one group, through that group's taps, written as Out (float, or
// bfloat16 bits). Products with the padding are skipped, as zeros: the kernel rows whose taps
// fall in the top or bottom padding, and at the kernel columns where the tile's first or last
// pixel reads the left or right padding, that pixel's (a 3x3 kernel over a 7x7 map pads nearly a
// fifth of its taps, half of them in columns).
template <typename Math, typename Out>
struct ForwardTile {
  // Per output row of the tile:
  const typename Math::In* in[2];  // padded input at the first pixel's receptive field (ky = kx =
                                   // 0, the group's first channel)
  Out* out[2];                     // output at the first pixel, the tile's first channel
  int ky_begin[2], ky_end[2];      // the kernel rows whose taps read the image
  int64_t pixel_step;              // elements between neighbouring pixels' receptive fields
  int64_t row_step;                // elements between padded input rows
  TapRuns taps;
  int64_t column_taps;  // taps of one kernel column in a run: a pixel's channels of the group
  // Bit kx: at kernel column kx the tile's first (last) pixel reads the padding.
  uint32_t first_in_padding, last_in_padding;
  const typename Math::Weight* weight;  // weight at the tile's first output channel
  const float* bias;                    // at the tile's first output channel; null: none
  int64_t c_out;
  int64_t out_step;  // elements between the tile's output pixels along a row
};

// The register tile of a ForwardTile: Pixels pixels along each of OutRows output rows, times NV
// vectors of output channels. Tile row r holds pixel r % Pixels of output row r / Pixels.
template <int OutRows, int Pixels, int NV>
struct TileShape {
  static_assert(OutRows == 1 || OutRows == 2, "a tile spans one or two output rows");
  static constexpr int kOutRows = OutRows, kPixels = Pixels, kRows = OutRows * Pixels;
  using Sums = Vec[kRows][NV];

  // The tile rows of pixel p of each output row.
  static constexpr uint32_t pixel_rows(int p) {
    return OutRows == 1 ? uint32_t{1} << p : (uint32_t{1} << p) | (uint32_t{1} << (Pixels + p));
  }
};

// acc's rows in the mask Mask += the products of taps [q0, q1) of a run whose first taps, per
// output row of the tile, are at in[], with the run's weights at w. This and add_kernel_row are
// forced inline: the accumulators stay in registers only while the whole tile is one function,
// and the compiler's own choice, for templates other files may instantiate too, was to call them.
template <uint32_t Mask, typename Shape, typename Math, typename Out>
[[gnu::always_inline]] inline void add_taps(const ForwardTile<Math, Out>& tile,
                                            typename Shape::Sums& acc,
                                            const typename Math::In* const (&in)[2], int64_t q0,
                                            int64_t q1, const typename Math::Weight* w) {
  constexpr int kStep = Math::kStep;
  for (int64_t q = q0; q < q1; q += kStep) {
    Math::template update<Mask>(
        acc,
        [&](int r) { return in[r / Shape::kPixels] + q + r % Shape::kPixels * tile.pixel_step; },
        w + q / kStep * tile.c_out);
  }
}

// acc's rows in Mask += the products of kernel row ky, without those of the first or last pixel
// where it reads the padding.
template <uint32_t Mask, typename Shape, typename Math, typename Out>
[[gnu::always_inline]] inline void add_kernel_row(const ForwardTile<Math, Out>& tile,
                                                  typename Shape::Sums& acc, int ky) {
  constexpr int kStep = Math::kStep;
  constexpr uint32_t kNoFirst = Mask & ~Shape::pixel_rows(0);
  constexpr uint32_t kNoLast = Mask & ~Shape::pixel_rows(Shape::kPixels - 1);
  const TapRuns& taps = tile.taps;
  const int64_t columns_per_run = taps.run / tile.column_taps;
  const typename Math::Weight* w =
      tile.weight + ky * kernel_row_weights(taps.count(), kStep) * tile.c_out;
  for (int64_t k = 0; k < taps.runs; ++k, w += taps.run / kStep * tile.c_out) {
    const int64_t first_tap = ky * tile.row_step + k * taps.run_step;
    const typename Math::In* const in[2] = {
        tile.in[0] + first_tap, Shape::kOutRows == 2 ? tile.in[1] + first_tap : nullptr};
    if ((tile.first_in_padding | tile.last_in_padding) == 0) {
      add_taps<Mask, Shape>(tile, acc, in, 0, taps.run, w);
      continue;
    }
    for (int64_t j = 0; j < columns_per_run; ++j) {
      const int64_t kx = k * columns_per_run + j;
      const int64_t q0 = j * tile.column_taps, q1 = q0 + tile.column_taps;
      const bool first = tile.first_in_padding >> kx & 1, last = tile.last_in_padding >> kx & 1;
      if (first && last) {
        add_taps<kNoFirst & kNoLast, Shape>(tile, acc, in, q0, q1, w);
      } else if (first) {
        add_taps<kNoFirst, Shape>(tile, acc, in, q0, q1, w);
      } else if (last) {
        add_taps<kNoLast, Shape>(tile, acc, in, q0, q1, w);
      } else {
        add_taps<Mask, Shape>(tile, acc, in, q0, q1, w);
      }
    }
  }
}

template <typename Math, typename Out, typename Shape>
void forward_tile(const ForwardTile<Math, Out>& tile) {
  constexpr int kPixels = Shape::kPixels, kRows = Shape::kRows;
  typename Shape::Sums acc;
  start_tile(acc, tile.bias);
  if constexpr (Shape::kOutRows == 1) {
    for (int ky = tile.ky_begin[0]; ky < tile.ky_end[0]; ++ky) {
      add_kernel_row<all_rows(kRows), Shape>(tile, acc, ky);
    }
    store_tile(acc, tile.out[0], tile.out_step);
  } else {
    constexpr uint32_t kTop = all_rows(kPixels), kBottom = all_rows(kRows) & ~kTop;
    const int first = std::min(tile.ky_begin[0], tile.ky_begin[1]);
    const int last = std::max(tile.ky_end[0], tile.ky_end[1]);
    for (int ky = first; ky < last; ++ky) {
      const bool top = tile.ky_begin[0] <= ky && ky < tile.ky_end[0];
      const bool bottom = tile.ky_begin[1] <= ky && ky < tile.ky_end[1];
      if (top && bottom) {
        add_kernel_row<kTop | kBottom, Shape>(tile, acc, ky);
      } else if (top) {
        add_kernel_row<kTop, Shape>(tile, acc, ky);
      } else if (bottom) {
        add_kernel_row<kBottom, Shape>(tile, acc, ky);
      }
    }
    store_rows<0, kPixels>(acc, tile.out[0], tile.out_step);
    store_rows<kPixels, kRows>(acc, tile.out[1], tile.out_step);
  }
}

// Tile functions for every width 1..N of a row of output pixels, indexed by width - 1: a row
// rarely divides evenly, and each width needs its own register tile.
template <typename Math, typename Out, int OutRows, int NV, int... Width>
constexpr auto forward_tiles(std::integer_sequence<int, Width...>) {
  return std::array<void (*)(const ForwardTile<Math, Out>&), sizeof...(Width)>{
      &forward_tile<Math, Out, TileShape<OutRows, Width + 1, NV>>...};
}

// A grid of forward tiles: per image, `rows` x `cols` outputs, with the steps between their
// receptive fields in the padded input and between the outputs themselves. A plain convolution
// sweeps its whole output; a strided one's backward-data sweeps one phase of dx at a time.
template <typename Math, typename Out>
struct TileGrid {
  int64_t images;
  int rows, cols;
  const typename Math::In* in;         // the first output's receptive field
  int64_t in_image, in_row, in_pixel;  // elements between receptive fields
  Out* out;                            // the first output
  int64_t out_image, out_row, out_pixel;
  int kh;
  int64_t kernel_row;  // elements between the input rows of one receptive field
  // The padded input row and column of the first output's receptive field, the rows (columns)
  // between those of neighbouring output rows (columns), and the rows [data_begin, data_end) and
  // columns [data_left, data_right) that hold the image.
  int64_t first_top, first_left, in_step, data_begin, data_end, data_left, data_right;
  int kw;
  TapRuns taps;
  const typename Math::Weight* weight;
  const float* bias;  // null: none
  int64_t c_out;
  int64_t group_in, group_out;  // channels per group of the input and of the output
};

// Bit kx: the receptive field of output column col reads the padding at kernel column kx. None
// for kernels wider than the bits, nor where a kernel column's taps are odd in bfloat16: pairs
// then straddle kernel columns (a stem's 3 channels).
template <typename Math, typename Out>
uint32_t columns_in_padding(const TileGrid<Math, Out>& grid, int col) {
  if (grid.kw > 32 || grid.group_in % Math::kStep != 0) return 0;
  const int64_t left = grid.first_left + col * grid.in_step;
  uint32_t bits = 0;
  for (int kx = 0; kx < grid.kw; ++kx) {
    if (left + kx < grid.data_left || left + kx >= grid.data_right) bits |= uint32_t{1} << kx;
  }
  return bits;
}

// The grid's tiles of NV vectors of output channels, threads taking rows of tiles.
template <typename Math, typename Out, int NV>
void sweep_tiles(const TileGrid<Math, Out>& grid, const Exec& ex) {
  constexpr int kPixels = forward_tile_pixels(NV);
  static constexpr auto kRowTiles =
      forward_tiles<Math, Out, 1, NV>(std::make_integer_sequence<int, kPixels>());
  static constexpr auto kTwoRowTiles =
      forward_tiles<Math, Out, 2, NV>(std::make_integer_sequence<int, kPixels / 2>());
  // Rows of the whole batch's grid per tile: two where they fit in one (the second row may be
  // the next image's first).
  const int tile_rows = 2 * grid.cols <= kPixels ? 2 : 1;
  const int64_t grid_rows = grid.images * grid.rows;
  // A two-row tile's pixels are its rows' all.
  const uint32_t row_first_in_padding = columns_in_padding(grid, 0);
  const uint32_t row_last_in_padding = columns_in_padding(grid, grid.cols - 1);
  parallel_for(ex, (grid_rows + tile_rows - 1) / tile_rows, [&](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t first_row = u * tile_rows;
      const int rows = static_cast<int>(std::min<int64_t>(tile_rows, grid_rows - first_row));
      ForwardTile<Math, Out> tile{};
      const typename Math::In* in[2] = {};  // each output row's first receptive field
      Out* out[2] = {};                     // and first output
      for (int j = 0; j < rows; ++j) {
        const int64_t image = (first_row + j) / grid.rows, r = (first_row + j) % grid.rows;
        const int64_t top = grid.first_top + r * grid.in_step;
        in[j] = grid.in + image * grid.in_image + r * grid.in_row;
        out[j] = grid.out + image * grid.out_image + r * grid.out_row;
        tile.ky_begin[j] = static_cast<int>(std::clamp<int64_t>(grid.data_begin - top, 0, grid.kh));
        tile.ky_end[j] = static_cast<int>(std::clamp<int64_t>(grid.data_end - top, 0, grid.kh));
      }
      tile.pixel_step = grid.in_pixel;
      tile.row_step = grid.kernel_row;
      tile.taps = grid.taps;
      tile.column_taps = grid.group_in;
      tile.c_out = grid.c_out;
      tile.out_step = grid.out_pixel;
      for (int64_t co = 0; co < grid.c_out; co += NV * kLanes) {
        const int64_t group_first_in = co / grid.group_out * grid.group_in;
        tile.weight = grid.weight + co;
        tile.bias = grid.bias != nullptr ? grid.bias + co : nullptr;
        if (rows == 2) {
          for (int j = 0; j < 2; ++j) {
            tile.in[j] = in[j] + group_first_in;
            tile.out[j] = out[j] + co;
          }
          tile.first_in_padding = row_first_in_padding;
          tile.last_in_padding = row_last_in_padding;
          kTwoRowTiles[grid.cols - 1](tile);
          continue;
        }
        for (int col = 0; col < grid.cols; col += kPixels) {
          const int pixels = std::min(kPixels, grid.cols - col);
          tile.in[0] = in[0] + group_first_in + col * grid.in_pixel;
          tile.out[0] = out[0] + col * grid.out_pixel + co;
          tile.first_in_padding = columns_in_padding(grid, col);
          tile.last_in_padding = columns_in_padding(grid, col + pixels - 1);
          kRowTiles[pixels - 1](tile);
        }
      }
    }
  });
}

// Sweeps the grid, in tiles of two vectors of output channels where a group's split evenly into
// pairs.
template <typename Math, typename Out>
void sweep(const TileGrid<Math, Out>& grid, const Exec& ex) {
  if (vectors_per_tile(static_cast<int>(grid.group_out)) == 2) {
    sweep_tiles<Math, Out, 2>(grid, ex);
  } else {
    sweep_tiles<Math, Out, 1>(grid, ex);
  }
}

// The grid of a kh x kw kernel in `groups` groups over the padded batch `in` ([images, hp, wp,
// channels]), whose first receptive field starts at in's row `top` and column `left` and whose
// neighbours lie `step` pixels apart; the outputs, weights and bias are the caller's to set.
template <typename Math, typename Out>
TileGrid<Math, Out> grid_over(const PaddedInput<typename Math::In>& in, int64_t top, int64_t left,
                              int step, int kh, int kw, int groups, int64_t images) {
  TileGrid<Math, Out> grid{};
  grid.images = images;
  grid.in = in.data + (top * in.wp + left) * in.c;
  grid.in_image = in.hp * in.wp * in.c;
  grid.in_row = step * in.wp * in.c;
  grid.in_pixel = step * in.c;
  grid.kh = kh;
  grid.kernel_row = in.wp * in.c;
  grid.first_top = top;
  grid.first_left = left;
  grid.in_step = step;
  grid.data_begin = in.pad;
  grid.data_end = in.hp - in.pad;
  grid.data_left = in.pad;
  grid.data_right = in.wp - in.pad;
  grid.kw = kw;
  grid.taps = tap_runs(kw, in.c, groups);
  grid.group_in = in.c / groups;
  return grid;
}

// The forward pass's grid over a chunk of `images` images of x, padded in `in`, into y (at the
// chunk's first image): every output pixel, plus bias (when not null).
template <typename Math, typename Out>
TileGrid<Math, Out> forward_grid(const Conv2dShape& s, const PaddedInput<typename Math::In>& in,
                                 const typename Math::Weight* weight, const float* bias, Out* y,
                                 int64_t images) {
  TileGrid<Math, Out> grid = grid_over<Math, Out>(in, 0, 0, s.stride, s.kh, s.kw, s.groups, images);
  grid.rows = s.out_h();
  grid.cols = s.out_w();
  grid.out = y;
  grid.out_image = int64_t{s.out_h()} * s.out_w() * s.c_out;
  grid.out_row = int64_t{s.out_w()} * s.c_out;
  grid.out_pixel = s.c_out;
  grid.weight = weight;
  grid.bias = bias;
  grid.c_out = s.c_out;
  grid.group_out = s.group_out();
  return grid;
}

}  // namespace xtrain::kernels::direct
