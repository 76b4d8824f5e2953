// The bfloat16 arithmetic of the direct convolutions' register tiles (conv2d_direct_tiles.h has
// the float32 one): pairs of bfloat16 values multiplied into float32 sums by vdpbf16ps. Exists only
// in builds for a CPU with AVX512_BF16; internal to the direct kernels' files.
#pragma once

#if defined(__AVX512BF16__)

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "lib/kernels/bf16_pairs.h"
#include "lib/kernels/conv2d_direct_tiles.h"
#include "lib/kernels/transpose.h"
#include "lib/parallel/exec.h"
#include "lib/tensor/elements.h"

namespace xtrain::kernels::direct {

// In bfloat16 a kernel row's taps pair up along their runs in the padded input (kw x c_in
// contiguous taps ungrouped; a group's even count of channels per kernel column grouped), and
// the weights are paired to match: pair q of a kernel row's taps is one uint32 per output channel
// (the even tap in the low half). An odd run (a stem's 7 x 3 taps) ends with a pair whose second
// tap is the element after the run, times a zero weight: finite inputs add nothing (an
// infinity or NaN there would make one more output NaN than in float32). Pairing within pixels
// instead would pad a 3-channel stem's pixels to 4 channels, a quarter of its products zeros.
// acc[r][v] += the dot products of pair_of(r) (a bfloat16 pair per row, broadcast) and bv[v] (NV
// vectors of pairs) for the tile's rows r in Mask: a rank-2 update, one vdpbf16ps per row and
// vector.
template <uint32_t Mask, int R, int NV, typename PairOf>
inline void rank2_update(Vec (&acc)[R][NV], PairOf&& pair_of, const __m512bh (&bv)[NV]) {
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    if ((Mask >> r & 1) == 0) continue;
    const __m512bh av = (__m512bh)_mm512_set1_epi32(static_cast<int>(pair_of(r)));
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_dpbf16_ps(acc[r][v], av, bv[v]);
  }
}

// The same with bv's pairs read from b.
template <uint32_t Mask, int R, int NV, typename PairOf>
inline void rank2_update(Vec (&acc)[R][NV], PairOf&& pair_of, const uint32_t* b) {
  __m512bh bv[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) bv[v] = (__m512bh)_mm512_loadu_si512(b + v * kLanes);
  rank2_update<Mask>(acc, pair_of, bv);
}

// Float32Math's twin: bfloat16 values in pairs of neighbouring taps (rank-2 updates, one
// vdpbf16ps per pair of weight rows and vector: twice the multiply-adds per instruction).
struct BFloat16Math {
  using In = uint16_t;
  using Weight = uint32_t;
  static constexpr int kStep = 2;
  template <uint32_t Mask, int R, int NV, typename At>
  static void update(Vec (&acc)[R][NV], At&& at, const Weight* b) {
    rank2_update<Mask>(
        acc,
        [&](int r) {
          uint32_t pair;  // two neighbouring taps of row r's receptive field
          std::memcpy(&pair, at(r), sizeof pair);
          return pair;
        },
        b);
  }

  // The backward-weight pass sums over output pixels in pairs: a[r] pairs a tap's input of two
  // neighbouring output pixels (pair_pixels), b their dy, channel by channel (pair_dy).
  using PixelIn = uint32_t;
  using PixelGrad = uint32_t;
  static constexpr int kPixels = 2;
  template <int R, int NV>
  static void pixel_update(Vec (&acc)[R][NV], const PixelIn* a, const PixelGrad* b) {
    rank2_update<all_rows(R)>(
        acc, [&](int r) { return a[r]; }, b);
  }

  // Float32Math::transpose_weights rounded to bfloat16 pairs of neighbouring output channels (row
  // q pairs channels 2q and 2q + 1), without a float32 kernel first: blocks of 16 input channels
  // by up to 256 pairs are rounded into a buffer on the stack, then transposed.
  static void transpose_weights(const float* src, int rows, int go, int64_t ld_src, uint32_t* dst,
                                int64_t ld_dst) {
    constexpr int kRows = 16, kPairs = 256;
    uint32_t block[kRows * kPairs];
    const int pairs = go / 2;
    for (int r0 = 0; r0 < rows; r0 += kRows) {
      const int block_rows = std::min(kRows, rows - r0);
      for (int p0 = 0; p0 < pairs; p0 += kPairs) {
        const int block_pairs = std::min(kPairs, pairs - p0);
        for (int r = 0; r < block_rows; ++r) {
          convert_to_bf16(src + (r0 + r) * ld_src + 2 * p0, 2 * block_pairs,
                          reinterpret_cast<uint16_t*>(block + r * block_pairs));
        }
        transpose_matrix(block_rows, block_pairs, block, block_pairs, dst + p0 * ld_dst + r0,
                         ld_dst);
      }
    }
  }
};

// Sums stored into a bfloat16 output, as a bfloat16 plan stores it: rounded.
template <>
struct StoreVector<uint16_t> {
  static void to(uint16_t* dst, Vec v) { store_rounded(dst, v); }
};

// dy [rows, out_w, c_out] in pairs of neighbouring pixels: out[row][q][co] pairs dy[row][2q][co]
// and dy[row][2q + 1][co] (0 past an odd out_w). The backward-weight passes multiply these pairs
// by pairs of the same pixels' inputs.
template <typename D>
void pair_dy(const D* dy, int64_t rows, int out_w, int64_t c_out, uint32_t* out, const Exec& ex) {
  const int64_t pairs = (out_w + 1) / 2;
  parallel_for(
      ex, rows,
      [&](int64_t r0, int64_t r1) {
        for (int64_t row = r0; row < r1; ++row) {
          for (int64_t q = 0; q < pairs; ++q) {
            const D* lo = dy + (row * out_w + 2 * q) * c_out;
            interleave_pair(lo, 2 * q + 1 < out_w ? lo + c_out : nullptr, c_out,
                            out + (row * pairs + q) * c_out);
          }
        }
      },
      4);
}

inline void pair_dy(ConstElements dy, int64_t rows, int out_w, int64_t c_out, uint32_t* out,
                    const Exec& ex) {
  if (dy.type == ElementType::kBFloat16) return pair_dy(dy.bf16(), rows, out_w, c_out, out, ex);
  pair_dy(dy.f32(), rows, out_w, c_out, out, ex);
}

}  // namespace xtrain::kernels::direct

#endif
