// The direct backward-weight pass: dweight += im2col(x)^T * dy as register tiles of a kernel row's
// taps (weight rows) times vectors of output channels, each summed over output pixels in order from
// a zero-padded x. Templated on the arithmetic: Float32Math one pixel at a time, BFloat16Math over
// pairs of neighbouring pixels. (For few output channels, bfloat16 puts taps in the lanes instead:
// conv2d_tap_tiles_bf16.cpp.) Internal to the direct kernels' files.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "lib/kernels/conv2d.h"
#include "lib/kernels/conv2d_direct_tiles.h"

namespace xtrain::kernels::direct {

// One backward-weight tile: `Rows` consecutive taps of one kernel row (weight rows) times NV
// vectors of output channels, summed over output pixels [pixel rows row0, row1) in order and
// added to what dweight holds. The output rows whose taps of this kernel row read the top or
// bottom padding are skipped: their products are zeros.
template <typename Math>
struct WeightTile {
  const typename Math::PixelIn* in;  // padded input of image 0 at (ky, first tap of the tile)
  int64_t image_step;                // elements between padded images
  int64_t row_step;    // elements between the receptive fields of neighbouring output rows
  int64_t pixel_step;  // ... of neighbouring output pixels
  int out_h, out_w;
  int ky, stride;                      // the tile's kernel row, the rows between receptive fields
  int64_t data_begin, data_end;        // the padded input rows that hold the image
  const typename Math::PixelGrad* dy;  // dy at the tile's first output channel
  int64_t c_out;
  float* dweight;  // dweight at the tile's first row and channel
};

template <typename Math, int Rows, int NV>
void weight_tile(const WeightTile<Math>& tile, int64_t row0, int64_t row1) {
  constexpr int kPixels = Math::kPixels;
  const int64_t steps = (tile.out_w + kPixels - 1) / kPixels;  // per output row
  Vec acc[Rows][NV];
  load_tile(acc, tile.dweight, tile.c_out);
  for (int64_t row = row0; row < row1; ++row) {
    const int64_t input_row = row % tile.out_h * tile.stride + tile.ky;  // in the padded input
    if (input_row < tile.data_begin || input_row >= tile.data_end) continue;
    const typename Math::PixelIn* in =
        tile.in + row / tile.out_h * tile.image_step + row % tile.out_h * tile.row_step;
    const typename Math::PixelGrad* dy = tile.dy + row * steps * tile.c_out;
    for (int64_t u = 0; u < steps; ++u) {
      Math::pixel_update(acc, in + u * kPixels * tile.pixel_step, dy + u * tile.c_out);
    }
  }
  store_tile(acc, tile.dweight, tile.c_out);
}

// Tile functions for every height 1..N, indexed by height - 1: a kernel row's taps rarely divide
// evenly, and each height needs its own register tile.
template <typename Math, int NV, int... Height>
constexpr auto weight_tiles(std::integer_sequence<int, Height...>) {
  return std::array<void (*)(const WeightTile<Math>&, int64_t, int64_t), sizeof...(Height)>{
      &weight_tile<Math, Height + 1, NV>...};
}

// dweight += the pass over a chunk of s.n images: x is the chunk's padded input (as PixelIn), dy
// its upstream gradient (as PixelGrad).
template <typename Math, int NV>
void backward_weight_tiles(const Conv2dShape& s, const PaddedInput<typename Math::PixelIn>& x,
                           const typename Math::PixelGrad* dy, float* dweight, const Exec& ex) {
  constexpr int kRows = weight_tile_rows(NV);
  static constexpr auto kTiles = weight_tiles<Math, NV>(std::make_integer_sequence<int, kRows>());
  const TapRuns taps = tap_runs(s.kw, s.c_in, s.groups);
  const int64_t run_blocks = (taps.run + kRows - 1) / kRows;  // tiles never straddle two runs
  const int64_t channel_blocks = s.c_out / (NV * kLanes);
  const int64_t out_rows = int64_t{s.n} * s.out_h();
  const int64_t row_bytes = sizeof(float) * s.out_w() * (s.c_out + int64_t{s.stride} * s.kh * x.c);
  const int64_t chunk_rows = weight_chunk_rows(row_bytes);
  // Threads own whole weight tiles, so every dweight element is summed by one thread in pixel
  // order whatever the thread count.
  const int64_t tiles = s.kh * taps.runs * run_blocks * channel_blocks;
  parallel_for(ex, tiles, [&](int64_t u0, int64_t u1) {
    for (int64_t row0 = 0; row0 < out_rows; row0 += chunk_rows) {
      const int64_t row1 = std::min(out_rows, row0 + chunk_rows);
      for (int64_t u = u0; u < u1; ++u) {
        const int64_t ky = u / (taps.runs * run_blocks * channel_blocks);
        const int64_t k = u / (run_blocks * channel_blocks) % taps.runs;
        const int64_t q0 = u / channel_blocks % run_blocks * kRows;
        const int64_t co = u % channel_blocks * NV * kLanes;
        const int64_t group_first_in = co / s.group_out() * s.group_in();
        const WeightTile<Math> tile{
            x.data + ky * x.wp * x.c + k * taps.run_step + group_first_in + q0,
            x.hp * x.wp * x.c,
            s.stride * x.wp * x.c,
            int64_t{s.stride} * x.c,
            s.out_h(),
            s.out_w(),
            static_cast<int>(ky),
            s.stride,
            x.pad,
            x.hp - x.pad,
            dy + co,
            s.c_out,
            dweight + (ky * taps.count() + k * taps.run + q0) * s.c_out + co};
        kTiles[std::min<int64_t>(kRows, taps.run - q0) - 1](tile, row0, row1);
      }
    }
  });
}

// backward_weight_tiles in tiles of two vectors of output channels where a group's split evenly
// into pairs.
template <typename Math>
void backward_weight_pass(const Conv2dShape& s, const PaddedInput<typename Math::PixelIn>& x,
                          const typename Math::PixelGrad* dy, float* dweight, const Exec& ex) {
  if (vectors_per_tile(s.group_out()) == 2) {
    backward_weight_tiles<Math, 2>(s, x, dy, dweight, ex);
  } else {
    backward_weight_tiles<Math, 1>(s, x, dy, dweight, ex);
  }
}

}  // namespace xtrain::kernels::direct
