// What the direct convolutions (conv2d_direct.h) share: their register tiles of output pixels or
// weight rows times vectors of output channels, the float32 arithmetic of those tiles
// (Float32Math; bfloat16's is in conv2d_direct_bf16_math.h), and the zero-padded copies of an
// input they read. Internal to the direct kernels' files.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "lib/kernels/simd.h"
#include "lib/kernels/transpose.h"
#include "lib/parallel/exec.h"
#include "lib/tensor/bfloat16.h"
#include "lib/tensor/elements.h"

namespace xtrain::kernels::direct {

using simd::Vec;
constexpr int kLanes = simd::kLanes;

// Vector registers of the target: a tile's accumulators and operands must all fit.
#if defined(__AVX512F__)
constexpr int kRegisters = 32;
#else
constexpr int kRegisters = 16;
#endif

// Output pixels per forward tile, each NV vectors of channels: as many as the registers hold, at
// most 14, so ResNet widths (112, 56, 28, 14, 7) split into whole tiles.
constexpr int forward_tile_pixels(int nv) { return std::min(14, (kRegisters - nv - 1) / nv); }
// Weight rows per backward-weight tile.
constexpr int weight_tile_rows(int nv) { return std::min(12, (kRegisters - nv - 1) / nv); }

// Vectors of output channels per tile: two when the channels split evenly into pairs.
inline int vectors_per_tile(int c_out) { return c_out % (2 * kLanes) == 0 ? 2 : 1; }

// ---- Padded inputs ----

// An NHWC batch with its zero padding materialized: [n, hp, wp, c] of float32 or bfloat16, `pad`
// zero pixels on every side.
template <typename In>
struct PaddedInput {
  const In* data;
  int64_t hp, wp, c;
  int pad;
};

inline size_t padded_floats(int64_t n, int64_t h, int64_t w, int64_t c, int pad) {
  return pad == 0 ? 0 : static_cast<size_t>(n * (h + 2 * pad) * (w + 2 * pad) * c);
}

// The passes pad a chunk of images at a time, as many as fit this many floats (at least one), so
// the workspace stays a few MB whatever the batch, where a whole batch of ImageNet-sized maps,
// padded, would take hundreds. Images are independent in the forward and backward-data passes, and
// the backward-weight pass goes through the chunks in order, so results do not depend on the
// chunking.
constexpr int64_t kPaddedChunkFloats = int64_t{1} << 20;

inline int images_per_chunk(int n, int64_t h, int64_t w, int64_t c, int pad) {
  const size_t per_image = padded_floats(1, h, w, c, pad);
  if (per_image == 0) return n;  // nothing is padded: the pass reads its input in place
  return static_cast<int>(std::clamp<int64_t>(kPaddedChunkFloats / per_image, 1, n));
}

// Calls fn(n0, images) for each chunk [n0, n0 + images) of a batch of n, in order.
template <typename Fn>
void for_each_chunk(int n, int chunk, Fn&& fn) {
  for (int n0 = 0; n0 < n; n0 += chunk) fn(n0, std::min(chunk, n - n0));
}

// out = x [n, h, w, c] with `pad` zero pixels on every side: put_row(source row, destination
// row) writes each image row's w pixels.
template <typename S, typename T, typename PutRow>
void pad_rows(const S* x, int n, int h, int w, int c, int pad, T* out, PutRow&& put_row,
              const Exec& ex) {
  const int64_t hp = h + 2 * pad, wp = w + 2 * pad;
  parallel_for(
      ex, n * hp,
      [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          T* dst = out + r * wp * c;
          const int64_t image = r / hp, ih = r % hp - pad;
          if (ih < 0 || ih >= h) {
            std::memset(dst, 0, sizeof(T) * wp * c);
            continue;
          }
          std::memset(dst, 0, sizeof(T) * pad * c);
          put_row(x + (image * h + ih) * w * c, dst + pad * c);
          std::memset(dst + (pad + w) * c, 0, sizeof(T) * pad * c);
        }
      },
      16);
}

// x [n, h, w, c] (float32 or bfloat16) as float32 with `pad` zero pixels on every side, in out
// (x itself when it is float32 and pad is 0).
inline PaddedInput<float> pad_input(ConstElements x, int n, int h, int w, int c, int pad,
                                    float* out, const Exec& ex) {
  const int64_t row = int64_t{w} * c;
  if (x.type == ElementType::kBFloat16) {
    pad_rows(
        x.bf16(), n, h, w, c, pad, out,
        [&](const BFloat16* src, float* dst) {
          for (int64_t i = 0; i < row; ++i) dst[i] = to_float(src[i]);
        },
        ex);
  } else if (pad == 0) {
    return {x.f32(), h, w, c, 0};
  } else {
    pad_rows(
        x.f32(), n, h, w, c, pad, out,
        [&](const float* src, float* dst) { std::memcpy(dst, src, sizeof(float) * row); }, ex);
  }
  return {out, h + 2 * pad, w + 2 * pad, c, pad};
}

// ---- Register tiles ----

// The register tiles of every pass: R rows of NV vectors, rows `ld` floats apart in memory.
// Every loop over a tile is unrolled, so the tile lives in registers.
template <int R, int NV>
inline void load_tile(Vec (&acc)[R][NV], const float* src, int64_t ld) {
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[r][v] = simd::load(src + r * ld + v * kLanes);
  }
}

// How a tile's vector of sums is stored into an output of element type Out: float32 as it is
// here, bfloat16 rounded (conv2d_direct_bf16_math.h).
template <typename Out>
struct StoreVector;

template <>
struct StoreVector<float> {
  static void to(float* dst, Vec v) { simd::store(dst, v); }
};

// Rows [Begin, End) of a tile to dst, rows `ld` elements apart.
template <int Begin, int End, int R, int NV, typename Out>
inline void store_rows(const Vec (&acc)[R][NV], Out* dst, int64_t ld) {
#pragma GCC unroll 16
  for (int r = Begin; r < End; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      StoreVector<Out>::to(dst + (r - Begin) * ld + v * kLanes, acc[r][v]);
    }
  }
}

// All rows of a tile to dst.
template <int R, int NV, typename Out>
inline void store_tile(const Vec (&acc)[R][NV], Out* dst, int64_t ld) {
  store_rows<0, R>(acc, dst, ld);
}

// Every row of the tile = bias[v lanes] (NV vectors), or zeros without a bias.
template <int R, int NV>
inline void start_tile(Vec (&acc)[R][NV], const float* bias) {
  Vec start[NV];
#pragma GCC unroll 2
  for (int v = 0; v < NV; ++v) {
    start[v] = bias != nullptr ? simd::load(bias + v * kLanes) : simd::zero();
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) acc[r][v] = start[v];
  }
}

// The rows of an R-row register tile, as a mask of bits (bit r: row r): the rank updates below
// take the rows they update as a compile-time mask, so that the unrolled loops keep only those.
constexpr uint32_t all_rows(int rows) { return (uint32_t{1} << rows) - 1; }

// Weight rows per kernel row and output channel of a kernel whose rows hold `taps` taps, fed
// `step` at a time (a Math's kStep): in bfloat16 pairs, an odd count's last one completed by a
// zero.
inline int64_t kernel_row_weights(int64_t taps, int step) { return (taps + step - 1) / step; }

// acc[r][v] += *at(r) * b[v lanes] for the tile's rows r in Mask: a rank-1 update, the whole
// inner loop of the float32 tiles (a broadcast per row, a vector load per column block, FMAs).
template <uint32_t Mask, int R, int NV, typename At>
inline void rank1_update(Vec (&acc)[R][NV], At&& at, const float* b) {
  Vec bv[NV];
#pragma GCC unroll 2
  for (int v = 0; v < NV; ++v) bv[v] = simd::load(b + v * kLanes);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    if ((Mask >> r & 1) == 0) continue;
    const Vec av = simd::broadcast(at(r));
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) acc[r][v] = simd::fma(av, bv[v], acc[r][v]);
  }
}

// What a tile multiplies: float32 values one by one (rank-1 updates, one FMA per weight row and
// vector); BFloat16Math pairs bfloat16 values instead. kStep input elements feed one Weight row.
struct Float32Math {
  using In = float;
  using Weight = float;
  static constexpr int kStep = 1;
  // The tile's rows in Mask += their taps' inputs (*at(r)) times a weight row (b).
  template <uint32_t Mask, int R, int NV, typename At>
  static void update(Vec (&acc)[R][NV], At&& at, const Weight* b) {
    rank1_update<Mask>(acc, at, b);
  }

  // The backward-weight pass sums over output pixels, one at a time: the tile's taps of one
  // pixel (a[r]) times its dy (b).
  using PixelIn = float;
  using PixelGrad = float;
  static constexpr int kPixels = 1;
  template <int R, int NV>
  static void pixel_update(Vec (&acc)[R][NV], const PixelIn* a, const PixelGrad* b) {
    rank1_update<all_rows(R)>(
        acc, [&](int r) { return a + r; }, b);
  }

  // A band of `rows` input channels of one group of a weight tap (src: at the group's first
  // output channel, rows ld_src apart) into a tap of a transposed kernel (dst: at the band's first
  // input channel, rows ld_dst apart): the backward-data pass's kernels, transposed in channels.
  static void transpose_weights(const float* src, int rows, int go, int64_t ld_src, float* dst,
                                int64_t ld_dst) {
    transpose_matrix(rows, go, src, ld_src, dst, ld_dst);
  }
};

// The taps of one kernel row, as runs of neighbouring floats in the padded input: `runs` runs of
// `run` taps, `run_step` floats apart, whose weight rows follow each other. In NHWC an ungrouped
// kernel row's kw x c_in taps are one run, contiguous both in the input and in the weight; with
// groups, each kx is a run of its group's input channels, and the runs are c_in floats apart.
struct TapRuns {
  int64_t runs, run, run_step;

  int64_t count() const { return runs * run; }  // weight rows per kernel row
};

inline TapRuns tap_runs(int kw, int64_t channels, int groups) {
  if (groups == 1) return {1, kw * channels, 0};
  return {kw, channels / groups, channels};
}

// Bytes of dy and input per backward-weight chunk of output rows: the chunk stays in L2 (half of
// a 1 MB one) while every weight tile of a thread sweeps it.
constexpr int64_t kWeightChunkBytes = int64_t{512} << 10;

// Rows of output pixels per backward-weight chunk, each row's dy and input `row_bytes`: a chunk's
// tiles all sweep it while it is in L2.
inline int64_t weight_chunk_rows(int64_t row_bytes) {
  return std::max<int64_t>(1, kWeightChunkBytes / row_bytes);
}

}  // namespace xtrain::kernels::direct
