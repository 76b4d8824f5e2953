// The direct bfloat16 backward-weight pass in tap tiles (conv2d_direct_bf16.h,
// conv2d_tap_tiles_suit): taps in the vector lanes, output channels in the rows. A vector of 16
// taps' pairs is two loads of x as it is (the taps of pixel p and of p + 1) interleaved in a
// register, and each row broadcasts its channel's dy pair into 3 such vectors. Nothing is padded:
// a window's taps outside the image are masked off at the row's ends, and padding rows are skipped
// (their products are zeros). The sums are kept transposed, [ky][run][c_out][the run's taps in
// whole vectors], between dweight's transposes in and out. Built only for a CPU with AVX512_BF16.
#include "lib/kernels/conv2d_direct_bf16.h"

#if defined(__AVX512BF16__)

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <utility>

#include "lib/kernels/bf16_pairs.h"
#include "lib/kernels/conv2d_direct_bf16_math.h"
#include "lib/kernels/conv2d_direct_sizes.h"
#include "lib/kernels/conv2d_direct_tiles.h"
#include "lib/kernels/prefetch.h"

namespace xtrain::kernels {

using direct::all_rows;
using direct::bf16_weight_chunk;
using direct::bf16_weight_scratch;
using direct::for_each_chunk;
using direct::kLanes;
using direct::kTapVectors;
using direct::load_tile;
using direct::pair_dy;
using direct::rank2_update;
using direct::store_tile;
using direct::tap_sums;
using direct::TapSums;
using direct::Vec;
using direct::weight_chunk_rows;
using direct::WeightPassScratch;

namespace {

constexpr int kTapTileChannels = 8;  // output channels per tile: 24 accumulators, 3 pairs, 1 dy

// A tap tile's view of x. The tile's taps of the window whose first input pixel is iw0 (negative,
// or past the row's end, in the padding) are the elements [iw0 * pixel_step + lane_offset, ...
// + taps) of an input row, at x + iw0 * pixel_step: those outside [0, w * pixel_step) read zeros.
// The shape's sizes and steps are copied in as the loops use them: a tile holding the Conv2dShape
// and deriving them took longer over the pass.
struct TapTile {
  const uint16_t* x;    // x at image 0, row 0, pixel 0, plus lane_offset
  int64_t lane_offset;  // the tile's first tap in a window: elements past the window's first
  int64_t image_step;   // elements between images of x
  int64_t row_step;     // ... between rows
  int64_t pixel_step;   // ... between pixels
  int h, w, stride, pad_h, pad_w, ky, out_h, out_w;
  // Whether the tile asks for the rows of x and dy ahead (prefetch.h): the first tile of a thread
  // over a chunk of rows, which reads them from memory for the tiles after it. Without, the tiles
  // of ResNet-20 at 28x28 wait on dy and x, and take as long as the padded copies they replace.
  bool prefetch;
  __mmask16 last_lanes;  // the taps of the tile's last vector
  // Pixel pairs [first_inside, end_inside) of a row have both windows inside the image.
  int64_t first_inside, end_inside;
  // dy at the tile's first output channel: in pixel pairs (pair_dy), or as it is (null dy_pairs),
  // which the tile pairs a row at a time.
  const uint32_t* dy_pairs;
  const uint16_t* dy;
  int64_t c_out;
  float* sums;       // the transposed sums at the tile's first channel and tap
  int64_t sums_row;  // floats between the sums of neighbouring output channels
};

// The lanes of vector j of a tile's taps that lie inside the image for the window at iw0.
template <int NT>
__mmask16 window_lanes(const TapTile& tile, int64_t iw0, int j) {
  const int64_t first = iw0 * tile.pixel_step + tile.lane_offset + j * kLanes;  // in the input row
  const __mmask16 lanes =
      first_lanes(tile.w * tile.pixel_step - first) & static_cast<__mmask16>(~first_lanes(-first));
  return j == NT - 1 ? lanes & tile.last_lanes : lanes;
}

// Pairs 16 taps of pixel p (lo) with the same taps of pixel p + 1 (hi), lo's in the low halves
// (the index reads only the low halves of its operands, so the casts leave the rest undefined).
inline __m512bh pair_taps(__m256i lo, __m256i hi, __m512i interleave) {
  return (__m512bh)_mm512_permutex2var_epi16(_mm512_castsi256_si512(lo), interleave,
                                             _mm512_castsi256_si512(hi));
}

inline __m256i load_taps(const uint16_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// acc += the products of output pixels p and p + 1 of one row (in: x at the row's pixel 0, plus
// the tile's lane_offset), whose dy pairs are `pairs`. Inside: both windows lie inside the image,
// and only the last vector needs its lanes masked.
template <int NT, bool Inside>
inline void add_pixel_pair(const TapTile& tile, Vec (&acc)[kTapTileChannels][NT],
                           const uint16_t* in, const uint32_t* pairs, int64_t p,
                           __m512i interleave) {
  const bool has_hi = p + 1 < tile.out_w;
  const int64_t iw0 = p * tile.stride - tile.pad_w;
  const uint16_t* lo = in + iw0 * tile.pixel_step;
  const uint16_t* hi = lo + tile.stride * tile.pixel_step;
  __m512bh x[NT];
#pragma GCC unroll 4
  for (int j = 0; j < NT; ++j) {
    if (Inside && j < NT - 1) {
      x[j] = pair_taps(load_taps(lo + j * kLanes), load_taps(hi + j * kLanes), interleave);
    } else {
      const __mmask16 lo_lanes = Inside ? tile.last_lanes : window_lanes<NT>(tile, iw0, j);
      const __mmask16 hi_lanes =
          Inside ? tile.last_lanes : (has_hi ? window_lanes<NT>(tile, iw0 + tile.stride, j) : 0);
      x[j] = pair_taps(_mm256_maskz_loadu_epi16(lo_lanes, lo + j * kLanes),
                       _mm256_maskz_loadu_epi16(hi_lanes, hi + j * kLanes), interleave);
    }
  }
  rank2_update<all_rows(kTapTileChannels)>(
      acc, [&](int r) { return pairs[r]; }, x);
}

// Pixel pairs whose dy pairs a tap tile makes at a time, in L1.
constexpr int64_t kTapTilePairs = 64;

// pairs[q - first][r] = the dy pair of output pixels 2q and 2q + 1 (0 past the row's end) in
// channel r of the tile, for pixel pairs q in [first, end) of a row (dy: its pixel 0). Two 128-bit
// unpacks, not interleave_pair's masked 512-bit permute, which took longer over the pass.
inline void pair_tile_channels(const TapTile& tile, const uint16_t* dy, int64_t first, int64_t end,
                               uint32_t (*pairs)[kTapTileChannels]) {
  static_assert(kTapTileChannels == 8, "a tile's channels of one pixel are one 128-bit load");
  for (int64_t q = first; q < end; ++q) {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(dy + 2 * q * tile.c_out));
    const __m128i hi =
        2 * q + 1 < tile.out_w
            ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(dy + (2 * q + 1) * tile.c_out))
            : _mm_setzero_si128();
    uint32_t* out = pairs[q - first];
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_unpacklo_epi16(lo, hi));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 4), _mm_unpackhi_epi16(lo, hi));
  }
}

// sums += the tile's products over output pixel rows [row0, row1), pair by pair in order.
template <int NT>
void tap_tile(const TapTile& tile, int64_t row0, int64_t row1) {
  const __m512i interleave = interleave_operands();
  const int64_t pixel_pairs = (tile.out_w + 1) / 2;
  uint32_t pairs[kTapTilePairs][kTapTileChannels];
  Vec acc[kTapTileChannels][NT];
  load_tile(acc, tile.sums, tile.sums_row);
  for (int64_t row = row0; row < row1; ++row) {
    const int64_t ih = row % tile.out_h * tile.stride + tile.ky - tile.pad_h;
    if (ih < 0 || ih >= tile.h) continue;  // a padding row: all its products are zeros
    const uint16_t* in = tile.x + row / tile.out_h * tile.image_step + ih * tile.row_step;
    if (tile.prefetch) {
      prefetch_rows_ahead(in - tile.lane_offset, tile.row_step, tile.stride, tile.row_step);
      if (tile.dy_pairs != nullptr) {
        prefetch_rows_ahead(tile.dy_pairs + row * pixel_pairs * tile.c_out,
                            pixel_pairs * tile.c_out, 1, pixel_pairs * tile.c_out);
      } else {
        prefetch_rows_ahead(tile.dy + row * tile.out_w * tile.c_out, tile.out_w * tile.c_out, 1,
                            tile.out_w * tile.c_out);
      }
    }
    for (int64_t first = 0; first < pixel_pairs; first += kTapTilePairs) {
      const int64_t end = std::min(pixel_pairs, first + kTapTilePairs);
      // Pixel pair q's dy pairs are at dy_pairs + (q - first) * step.
      const uint32_t* dy_pairs = &pairs[0][0];
      int64_t step = kTapTileChannels;
      if (tile.dy_pairs != nullptr) {
        dy_pairs = tile.dy_pairs + (row * pixel_pairs + first) * tile.c_out;
        step = tile.c_out;
      } else {
        pair_tile_channels(tile, tile.dy + row * tile.out_w * tile.c_out, first, end, pairs);
      }
      // The pairs before the windows inside the image, those inside, those after: each loop
      // with its own code, the middle one without masks to compute.
      const int64_t inside = std::clamp(tile.first_inside, first, end);
      const int64_t after = std::clamp(tile.end_inside, inside, end);
      for (int64_t q = first; q < inside; ++q)
        add_pixel_pair<NT, false>(tile, acc, in, dy_pairs + (q - first) * step, 2 * q, interleave);
      for (int64_t q = inside; q < after; ++q)
        add_pixel_pair<NT, true>(tile, acc, in, dy_pairs + (q - first) * step, 2 * q, interleave);
      for (int64_t q = after; q < end; ++q)
        add_pixel_pair<NT, false>(tile, acc, in, dy_pairs + (q - first) * step, 2 * q, interleave);
    }
  }
  store_tile(acc, tile.sums, tile.sums_row);
}

// n elements of v as bfloat16: v's own when it stores them so, else rounded into `copy`.
const uint16_t* bf16_elements(ConstElements v, int64_t n, uint16_t* copy, const Exec& ex) {
  if (v.type == ElementType::kBFloat16) return reinterpret_cast<const uint16_t*>(v.bf16());
  parallel_for(
      ex, n, [&](int64_t i0, int64_t i1) { convert_to_bf16(v.f32() + i0, i1 - i0, copy + i0); },
      1 << 14);
  return copy;
}

// The pixel pairs [first, end) of an output row whose two windows' taps [lane_offset, lane_offset
// + taps) lie inside the input row.
std::pair<int64_t, int64_t> pairs_inside(const Conv2dShape& s, int64_t lane_offset, int64_t taps) {
  // A window's first pixel iw0 = p * stride - pad must be in [lowest, highest].
  const int64_t lowest = -(lane_offset / s.c_in);
  const int64_t highest = s.w - (lane_offset + taps + s.c_in - 1) / s.c_in;
  const int64_t first_pixel = std::max<int64_t>(0, (lowest + s.pad_w + s.stride - 1) / s.stride);
  const int64_t last_pixel =
      highest + s.pad_w < 0 ? -1 : std::min<int64_t>(s.out_w() - 1, (highest + s.pad_w) / s.stride);
  return {(first_pixel + 1) / 2, std::max<int64_t>(0, (last_pixel + 1) / 2)};
}

// sums += the tap tiles' pass over a chunk of s.n images of x and dy, both bfloat16. Threads own
// whole tiles, so every sum is taken by one thread in pixel order whatever the thread count.
void tap_pass(const Conv2dShape& s, const TapSums& layout, const uint16_t* x,
              const uint32_t* dy_pairs, const uint16_t* dy, float* sums, const Exec& ex) {
  static constexpr std::array<void (*)(const TapTile&, int64_t, int64_t), kTapVectors> kTiles{
      &tap_tile<1>, &tap_tile<2>, &tap_tile<3>};
  const int64_t channel_blocks = s.c_out / kTapTileChannels;
  const int64_t out_rows = int64_t{s.n} * s.out_h();
  const int64_t row_bytes =
      sizeof(uint16_t) * (int64_t{s.out_w()} * s.c_out + int64_t{s.stride} * s.kh * s.w * s.c_in);
  const int64_t chunk_rows = weight_chunk_rows(row_bytes);
  const int64_t tiles = s.kh * layout.taps.runs * layout.blocks * channel_blocks;
  parallel_for(ex, tiles, [&](int64_t u0, int64_t u1) {
    for (int64_t row0 = 0; row0 < out_rows; row0 += chunk_rows) {
      const int64_t row1 = std::min(out_rows, row0 + chunk_rows);
      for (int64_t u = u0; u < u1; ++u) {
        const int64_t ky = u / (layout.taps.runs * layout.blocks * channel_blocks);
        const int64_t k = u / (layout.blocks * channel_blocks) % layout.taps.runs;
        const int64_t q0 = u / channel_blocks % layout.blocks * kTapVectors * kLanes;
        const int64_t co = u % channel_blocks * kTapTileChannels;
        const int64_t group_first_in = co / s.group_out() * s.group_in();
        const int64_t taps = std::min<int64_t>(kTapVectors * kLanes, layout.taps.run - q0);
        const int vectors = static_cast<int>((taps + kLanes - 1) / kLanes);
        const int64_t lane_offset = k * layout.taps.run_step + group_first_in + q0;
        const auto [first_inside, end_inside] = pairs_inside(s, lane_offset, taps);
        const TapTile tile{x + lane_offset,
                           lane_offset,
                           int64_t{s.h} * s.w * s.c_in,
                           int64_t{s.w} * s.c_in,
                           s.c_in,
                           s.h,
                           s.w,
                           s.stride,
                           s.pad_h,
                           s.pad_w,
                           static_cast<int>(ky),
                           s.out_h(),
                           s.out_w(),
                           u == u0,
                           first_lanes(taps - (vectors - 1) * kLanes),
                           first_inside,
                           end_inside,
                           dy_pairs != nullptr ? dy_pairs + co : nullptr,
                           dy != nullptr ? dy + co : nullptr,
                           s.c_out,
                           sums + ((ky * layout.taps.runs + k) * s.c_out + co) * layout.row() + q0,
                           layout.row()};
        kTiles[vectors - 1](tile, row0, row1);
      }
    }
  });
}

// Calls fn(sum, weight) for each element of dweight [kh, runs x run, c_out] and its place in the
// transposed sums.
template <typename Fn>
void for_each_tap_sum(const Conv2dShape& s, const TapSums& layout, float* dweight, float* sums,
                      Fn&& fn) {
  for (int64_t r = 0; r < s.kh * layout.taps.runs; ++r) {
    for (int64_t q = 0; q < layout.taps.run; ++q) {
      float* weights = dweight + (r * layout.taps.run + q) * s.c_out;
      for (int64_t co = 0; co < s.c_out; ++co)
        fn(sums[(r * s.c_out + co) * layout.row() + q], weights[co]);
    }
  }
}

// Whether the tap tiles pair dy themselves, a row at a time, instead of reading the pairs of a
// pass before (pair_dy): while a channel's dy feeds few tiles per kernel row, pairing it in each
// costs less than writing and reading the pairs (ResNet-20's 32-channel layers, 2 tiles per kernel
// row, pair in the tiles; DenseNet-121's 128 -> 32 layers, 8 tiles, read the pairs).
bool tap_tiles_pair_dy(const TapSums& layout) { return layout.taps.runs * layout.blocks <= 2; }

}  // namespace

// Through the transposed sums: dweight in, the passes over each chunk of images, dweight out.
void conv2d_tap_tiles_bf16_backward_weight(const Conv2dShape& s, ConstElements x, ConstElements dy,
                                           float* dweight, float* workspace, const Exec& ex,
                                           Precision precision) {
  const TapSums layout = tap_sums(s);
  const bool tiles_pair_dy = tap_tiles_pair_dy(layout);
  // What is read as it is, bfloat16, is read in place; the rest is rounded (x, dy) or paired (dy)
  // a chunk of images at a time, and with nothing to copy the batch is one chunk.
  const bool nothing_copied =
      x.type == ElementType::kBFloat16 && dy.type == ElementType::kBFloat16 && tiles_pair_dy;
  const int copied = bf16_weight_chunk(s);
  const WeightPassScratch scratch = bf16_weight_scratch(s, copied);
  float* sums = workspace;
  uint16_t* x_copy = reinterpret_cast<uint16_t*>(workspace + scratch.sums);
  float* dy_scratch = workspace + scratch.sums + scratch.x;  // a bfloat16 copy, or the pairs
  std::fill(sums, sums + scratch.sums, 0.0f);                // the lanes past a run's taps stay 0
  for_each_tap_sum(s, layout, dweight, sums, [](float& sum, float w) { sum = w; });
  const int64_t x_image = int64_t{s.h} * s.w * s.c_in;
  const int64_t dy_image = int64_t{s.out_h()} * s.out_w() * s.c_out;
  for_each_chunk(s.n, nothing_copied ? s.n : copied, [&](int n0, int images) {
    Conv2dShape part = s;
    part.n = images;
    const uint16_t* x_bf16 = bf16_elements(x.at(n0 * x_image), images * x_image, x_copy, ex);
    if (tiles_pair_dy) {
      const uint16_t* dy_bf16 = bf16_elements(dy.at(n0 * dy_image), images * dy_image,
                                              reinterpret_cast<uint16_t*>(dy_scratch), ex);
      return tap_pass(part, layout, x_bf16, nullptr, dy_bf16, sums, ex);
    }
    uint32_t* dy_pairs = reinterpret_cast<uint32_t*>(dy_scratch);
    pair_dy(dy.at(n0 * dy_image), int64_t{images} * s.out_h(), s.out_w(), s.c_out, dy_pairs, ex);
    tap_pass(part, layout, x_bf16, dy_pairs, nullptr, sums, ex);
  });
  for_each_tap_sum(s, layout, dweight, sums, [](float sum, float& w) { w = sum; });
}

}  // namespace xtrain::kernels

#endif
