// gemm's bfloat16 tiles: A and B are rounded to bfloat16 as they are packed, in pairs along k,
// and the register tile multiplies the pairs with AVX512_BF16's vdpbf16ps (acc += a[2q] b[2q] +
// a[2q + 1] b[2q + 1] per float32 lane, 32 multiply-adds per instruction: twice the FMA's).
// Without AVX512_BF16 the pairs are emulated: both values rounded into float slots, odd k first,
// for the float32 tile. vdpbf16ps adds the odd product first too, and a product of two bfloat16 is
// exact in float32, so the emulation gives the hardware's bits (but for sums below 1.2e-38, which
// the instruction flushes to zero), on any CPU and build.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "lib/kernels/bf16_pairs.h"
#include "lib/kernels/gemm.h"
#include "lib/kernels/gemm_tile.h"
#include "lib/kernels/prefetch.h"
#include "lib/tensor/bfloat16.h"

namespace xtrain::kernels {
namespace gemm_tile {
namespace {

#if defined(__AVX512BF16__)
// A pair in one 32-bit slot, the even k in the low half: a lane of vdpbf16ps's operands.
using Slot = uint32_t;
constexpr int kSlotsPerPair = 1;
inline void put_pair(Slot* out, int64_t /*next*/, float lo, float hi) {
  *out = to_bfloat16(lo).bits | uint32_t{to_bfloat16(hi).bits} << 16;
}
#else
// A pair in two float slots `next` apart, the odd k first.
using Slot = float;
constexpr int kSlotsPerPair = 2;
inline void put_pair(Slot* out, int64_t next, float lo, float hi) {
  out[0] = round_to_bfloat16(hi);
  out[next] = round_to_bfloat16(lo);
}
#endif

// Where packed pairs go: pair q of row r at out + q * q_step + r * r_step; emulated, its second
// slot is `next` further.
struct PairLayout {
  Slot* out;
  int64_t q_step, r_step, next;
};

#if defined(__AVX512BF16__)
// Rows of pairs from rows contiguous along k: the bfloat16 of a row, in order, are its pairs (an
// odd kc's last pair gets a zero).
template <typename T>
void convert_rows(const T* data, int64_t ld, int64_t r0, int rows, int64_t p0, int64_t kc,
                  const PairLayout& to) {
  for (int r = 0; r < rows; ++r) {
    const T* src = data + (r0 + r) * ld + p0;
    uint16_t* dst = reinterpret_cast<uint16_t*>(to.out + r * to.r_step);
    if constexpr (std::is_same_v<T, float>) {
      convert_to_bf16(src, kc, dst);
    } else {
      std::memcpy(dst, src, sizeof(uint16_t) * kc);
    }
    if (kc % 2 != 0) dst[kc] = 0;
  }
}

// Panels from rows contiguous per k: pair q of row r interleaves rows p0 + 2q and p0 + 2q + 1 of
// the storage at r (a missing odd row is zero).
template <typename T>
void interleave_rows(const T* data, int64_t ld, int64_t r0, int rows, int64_t p0, int64_t kc,
                     const PairLayout& to) {
  for (int64_t q = 0; q < (kc + 1) / 2; ++q) {
    const T* lo = data + (p0 + 2 * q) * ld + r0;
    prefetch_two_rows_ahead(lo, ld, rows);
    interleave_pair(lo, 2 * q + 1 < kc ? lo + ld : nullptr, rows, to.out + q * to.q_step);
  }
}
#endif

// Pairs q_begin, q_begin + 1, ... of rows [r_begin, r_end), each row contiguous along k in the
// storage, one pair at a time (an odd kc's last pair gets a zero).
template <typename T>
void pair_rows(const T* data, int64_t ld, int64_t r0, int r_begin, int r_end, int64_t p0,
               int64_t q_begin, int64_t kc, const PairLayout& to) {
  const int64_t whole = kc / 2;
  for (int r = r_begin; r < r_end; ++r) {
    const T* src = data + (r0 + r) * ld + p0;
    Slot* dst = to.out + r * to.r_step;
    for (int64_t q = q_begin; q < whole; ++q) {
      put_pair(dst + q * to.q_step, to.next, value(src + 2 * q), value(src + 2 * q + 1));
    }
    if (kc % 2 != 0) put_pair(dst + whole * to.q_step, to.next, value(src + kc - 1), 0.0f);
  }
}

#if defined(__AVX512BF16__)
// The 16 pairs of a row at src: 32 values along k, rounded or as they are.
inline __m512 sixteen_pairs(const float* src) {
  return _mm512_castsi512_ps(
      (__m512i)_mm512_cvtne2ps_pbh(_mm512_loadu_ps(src + 16), _mm512_loadu_ps(src)));
}
inline __m512 sixteen_pairs(const BFloat16* src) {
  return _mm512_castsi512_ps(_mm512_loadu_si512(src));
}

// Panels whose rows lie side by side (pair q of row r at to.out[q * q_step + r]: B's panels
// from a transposed B) from rows contiguous along k: whole blocks of 16 rows by 16 pairs
// transposed in registers (transpose_blocks), the rest a pair at a time.
template <typename T>
void transpose_rows(const T* data, int64_t ld, int64_t r0, int rows, int64_t p0, int64_t kc,
                    const PairLayout& to) {
  const int whole_rows = rows / simd::kLanes * simd::kLanes;
  const int64_t whole_pairs = kc / (2 * simd::kLanes) * simd::kLanes;
  transpose_blocks(
      whole_rows, whole_pairs,
      [&](int r, int64_t q) { return sixteen_pairs(data + (r0 + r) * ld + p0 + 2 * q); },
      reinterpret_cast<float*>(to.out), to.q_step);
  pair_rows(data, ld, r0, 0, whole_rows, p0, whole_pairs, kc, to);
  pair_rows(data, ld, r0, whole_rows, rows, p0, 0, kc, to);
}
#endif

// Packs op(X)[r0 : r0 + rows, p0 : p0 + kc] (X's storage at data, ld apart) as bfloat16 pairs
// along k (k = p0 + 2q and p0 + 2q + 1); the pair past an odd kc's end holds a zero. Each storage
// order gets the loop that reads it contiguously.
template <typename T>
void pack_pairs(const T* data, int64_t ld, bool transposed, int64_t r0, int rows, int64_t p0,
                int64_t kc, const PairLayout& to) {
#if defined(__AVX512BF16__)
  // The vector paths: A's rows (row-major A) and B's panels from a row-major B, A's panels from
  // a transposed A (backward-weight passes) and B's from a transposed B (backward-data passes).
  if (!transposed && to.q_step == 1) return convert_rows(data, ld, r0, rows, p0, kc, to);
  if (transposed && to.r_step == 1) return interleave_rows(data, ld, r0, rows, p0, kc, to);
  if (!transposed && to.r_step == 1) return transpose_rows(data, ld, r0, rows, p0, kc, to);
#endif
  if (!transposed) return pair_rows(data, ld, r0, 0, rows, p0, 0, kc, to);
  // op(X)[r, p] = data[p * ld + r]: rows are contiguous per p.
  const int64_t whole = kc / 2;
  for (int64_t q = 0; q < (kc + 1) / 2; ++q) {
    const T* lo = data + (p0 + 2 * q) * ld + r0;
    const T* hi = lo + ld;
    Slot* dst = to.out + q * to.q_step;
    if (q < whole) {
      for (int r = 0; r < rows; ++r) {
        put_pair(dst + r * to.r_step, to.next, value(lo + r), value(hi + r));
      }
    } else {
      for (int r = 0; r < rows; ++r) put_pair(dst + r * to.r_step, to.next, value(lo + r), 0.0f);
    }
  }
}

#if defined(__AVX512BF16__)
// A transposed A's panels of kMR rows, op(A)[i0 : i0 + mc, p0 : p0 + kc] (pair q of row r of the
// panel at ir: out[ir * pairs + q * kMR + r - ir]): each pair of storage rows is interleaved
// across all mc rows of op(A) at once, then dealt out kMR slots a panel. Packing panel by panel
// interleaved kMR values per call, which cost as much as the multiply where m is small and k
// large (backward-weight GEMMs: A = x^T over a batch's pixels, ResNet-50's 64 -> 256 pointwise).
// Slots of a last partial panel past mc are left as they are (zero).
template <typename T>
void pack_transposed_panels(const T* data, int64_t ld, int64_t i0, int64_t mc, int64_t p0,
                            int64_t kc, Slot* out) {
  Slot pairs[kMC];
  const int64_t num_pairs = (kc + 1) / 2;
  for (int64_t q = 0; q < num_pairs; ++q) {
    const T* lo = data + (p0 + 2 * q) * ld + i0;
    prefetch_two_rows_ahead(lo, ld, mc);
    interleave_pair(lo, 2 * q + 1 < kc ? lo + ld : nullptr, mc, pairs);
    for (int64_t ir = 0; ir < mc; ir += kMR) {
      std::copy_n(pairs + ir, std::min<int64_t>(kMR, mc - ir), out + ir * num_pairs + q * kMR);
    }
  }
}

void pack_transposed_panels(const Operand& a, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
                            Slot* out) {
  if (a.data.type == ElementType::kBFloat16) {
    pack_transposed_panels(a.bf16(), a.ld, i0, mc, p0, kc, out);
  } else {
    pack_transposed_panels(a.f32(), a.ld, i0, mc, p0, kc, out);
  }
}
#endif

void pack_pairs(const Operand& x, int64_t r0, int rows, int64_t p0, int64_t kc,
                const PairLayout& to) {
  if (x.data.type == ElementType::kBFloat16) {
    pack_pairs(x.bf16(), x.ld, x.transposed, r0, rows, p0, kc, to);
  } else {
    pack_pairs(x.f32(), x.ld, x.transposed, r0, rows, p0, kc, to);
  }
}

// C tile = alpha * a_panel * b_panel + c_scale * C over `pairs` pairs of k, in order. The A
// panel is packed (pair q of row r at a[q * kMR + r]) or rows of pairs (a[r * lda + q]); B is
// packed (b[q * kNR + c]). Slots as above.
#if defined(__AVX512BF16__)
template <bool kPackedA, typename Out>
void bf16_tile(int64_t pairs, const Slot* a, int64_t lda, const Slot* b, float alpha, float c_scale,
               Out* c, int64_t ldc, int rows, int cols) {
  static_assert(simd::kLanes == 16, "AVX512_BF16 comes with AVX-512's 16 float lanes");
  Vec acc[kMR][2];
#pragma GCC unroll 6
  for (int r = 0; r < kMR; ++r) acc[r][0] = acc[r][1] = simd::zero();
  for (int64_t q = 0; q < pairs; ++q) {
    const __m512bh b0 = (__m512bh)_mm512_loadu_si512(b);
    const __m512bh b1 = (__m512bh)_mm512_loadu_si512(b + simd::kLanes);
#pragma GCC unroll 6
    for (int r = 0; r < kMR; ++r) {
      const __m512bh ar =
          (__m512bh)_mm512_set1_epi32(static_cast<int>(kPackedA ? a[r] : a[r * lda]));
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], ar, b0);
      acc[r][1] = _mm512_dpbf16_ps(acc[r][1], ar, b1);
    }
    a += kPackedA ? kMR : 1;
    b += kNR;
  }
  store_tile(acc, alpha, c_scale, c, ldc, rows, cols);
}
#else
template <bool kPackedA, typename Out>
void bf16_tile(int64_t pairs, const Slot* a, int64_t lda, const Slot* b, float alpha, float c_scale,
               Out* c, int64_t ldc, int rows, int cols) {
  float32_tile<kPackedA ? APanel::kPacked : APanel::kRows>(2 * pairs, a, lda, b, alpha, c_scale, c,
                                                           ldc, rows, cols);
}
#endif

}  // namespace

template <typename Out>
void multiply_bf16(const Operand& a, const Operand& b, int64_t i0, int64_t i1, int64_t j0,
                   int64_t j1, int64_t k, int64_t depth, float alpha, float beta, Out* c,
                   int64_t ldc, float* blocks) {
  // A's block of kMC rows first, then B's.
  const int64_t block_slots = (depth + 1) / 2 * kSlotsPerPair;
  const int64_t block_nc = block_columns(block_slots);
  Slot* pa = reinterpret_cast<Slot*>(blocks);
  Slot* pb = pa + kMC * block_slots;
  const Operand bt{b.data, b.ld, !b.transposed};  // B's columns are the rows of B^T
  for (int64_t jc = j0; jc < j1; jc += block_nc) {
    const int64_t nc = std::min(block_nc, j1 - jc);
    for (int64_t pc = 0; pc < k; pc += depth) {
      const int64_t kc = std::min(depth, k - pc);
      const int64_t pairs = (kc + 1) / 2, slots = pairs * kSlotsPerPair;  // per row or column
      const float c_scale = pc == 0 ? beta : 1.0f;
      for (int64_t jr = 0; jr < nc; jr += kNR) {  // B as panels of kNR columns
        const int cols = static_cast<int>(std::min<int64_t>(kNR, nc - jr));
        Slot* panel = pb + jr * slots;
        if (cols < kNR) std::fill_n(panel, slots * kNR, Slot{0});
        pack_pairs(bt, jc + jr, cols, pc, kc, {panel, kSlotsPerPair * kNR, 1, kNR});
      }
      for (int64_t ic = i0; ic < i1; ic += kMC) {
        const int64_t mc = std::min(kMC, i1 - ic);
        const int64_t padded_rows = (mc + kMR - 1) / kMR * kMR;
        // A row-major A packs as rows of pairs, each row converted contiguously; a transposed one
        // as panels of kMR rows. Rows past mc are zero either way.
        if (!a.transposed) {
          std::fill(pa + mc * slots, pa + padded_rows * slots, Slot{0});
          pack_pairs(a, ic, static_cast<int>(mc), pc, kc, {pa, kSlotsPerPair, slots, 1});
        } else {
#if defined(__AVX512BF16__)
          if (mc % kMR != 0) std::fill(pa + mc / kMR * kMR * slots, pa + padded_rows * slots, 0u);
          pack_transposed_panels(a, ic, mc, pc, kc, pa);
#else
          for (int64_t ir = 0; ir < mc; ir += kMR) {
            const int rows = static_cast<int>(std::min<int64_t>(kMR, mc - ir));
            Slot* panel = pa + ir * slots;
            if (rows < kMR) std::fill_n(panel, slots * kMR, Slot{0});
            pack_pairs(a, ic + ir, rows, pc, kc, {panel, kSlotsPerPair * kMR, 1, kMR});
          }
#endif
        }
        RowsAhead ahead = rows_ahead(a, b, i0, i1, ic, mc, jc, nc, pc, depth, k);
        for_each_tile(c, ldc, ic, mc, jc, nc, c_scale != 0.0f, ahead,
                      [=](int64_t ir, int64_t jr, int rows, int cols, Out* c_tile) {
                        if (!a.transposed) {
                          bf16_tile<false>(pairs, pa + ir * slots, slots, pb + jr * slots, alpha,
                                           c_scale, c_tile, ldc, rows, cols);
                        } else {
                          bf16_tile<true>(pairs, pa + ir * slots, kMR, pb + jr * slots, alpha,
                                          c_scale, c_tile, ldc, rows, cols);
                        }
                      });
      }
    }
  }
}

template void multiply_bf16(const Operand&, const Operand&, int64_t, int64_t, int64_t, int64_t,
                            int64_t, int64_t, float, float, float*, int64_t, float*);
template void multiply_bf16(const Operand&, const Operand&, int64_t, int64_t, int64_t, int64_t,
                            int64_t, int64_t, float, float, BFloat16*, int64_t, float*);

}  // namespace gemm_tile

}  // namespace xtrain::kernels
