// Rounding float32 to bfloat16 in bulk (AVX512_BF16's converts where the CPU has them), and the
// pair layout its dot product reads: two values that multiply into one float32 lane share a
// 32-bit slot, the first (even k) in the low half. The pairs exist only in builds for a CPU with
// AVX512_BF16 (gemm_bf16.cpp and the direct convolutions use them there; elsewhere they emulate
// or do without).
#pragma once

#include <cstdint>

#include "lib/tensor/bfloat16.h"

namespace xtrain::kernels {

// dst[i] = bfloat16(src[i]) for i < n (as to_bfloat16), in any build.
void convert_to_bf16(const float* src, int64_t n, uint16_t* dst);

}  // namespace xtrain::kernels

#if defined(__AVX512BF16__)

#include <immintrin.h>

#include <algorithm>

namespace xtrain::kernels {

// dst[0..15] = the 16 floats of v rounded to bfloat16 (the bits of to_bfloat16): a register tile
// stored into a bfloat16 output.
inline void store_rounded(void* dst, __m512 v) {
  _mm256_storeu_si256(static_cast<__m256i*>(dst), (__m256i)_mm512_cvtneps_pbh(v));
}

// The 16 bfloat16 at src, widened to floats (exactly).
inline __m512 load_widened(const void* src) {
  const __m512i bits = _mm512_cvtepu16_epi32(_mm256_loadu_si256(static_cast<const __m256i*>(src)));
  return _mm512_castsi512_ps(_mm512_slli_epi32(bits, 16));
}

// The first n of 16 lanes (none for n <= 0, all for n >= 16).
inline __mmask16 first_lanes(int64_t n) {
  return static_cast<__mmask16>(n >= 16 ? 0xffff : (1u << std::max<int64_t>(n, 0)) - 1);
}

// The index of _mm512_permutex2var_epi16(a, index, b) that pairs two rows of 16: lane 2i takes
// a's element i (the low half of pair i), lane 2i + 1 b's element i.
inline __m512i interleave_operands() {
  alignas(64) static constexpr int16_t kInterleave[32] = {
      0, 32, 1, 33, 2,  34, 3,  35, 4,  36, 5,  37, 6,  38, 7,  39,
      8, 40, 9, 41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47};
  return _mm512_load_si512(kInterleave);
}

// The index of _mm512_permutexvar_epi16(index, v) that pairs v's halves: lane 2i takes element i
// of the low half, lane 2i + 1 element i of the high half.
inline __m512i interleave_halves() {
  alignas(64) static constexpr int16_t kInterleave[32] = {
      0, 16, 1, 17, 2,  18, 3,  19, 4,  20, 5,  21, 6,  22, 7,  23,
      8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
  return _mm512_load_si512(kInterleave);
}

// out[j] = bfloat16(lo[j]) | bfloat16(hi[j]) << 16 for j < n; hi null: zeros. Inline: the direct
// convolutions pair rows of a few dozen elements, where a call would cost as much as the work.
inline void interleave_pair(const float* lo, const float* hi, int64_t n, uint32_t* out) {
  const __m512i interleave = interleave_halves();
  for (int64_t j = 0; j < n; j += 16) {
    const __mmask16 lanes = first_lanes(n - j);
    const __m512 lo_v = _mm512_maskz_loadu_ps(lanes, lo + j);
    const __m512 hi_v = hi != nullptr ? _mm512_maskz_loadu_ps(lanes, hi + j) : _mm512_setzero_ps();
    const __m512i v = (__m512i)_mm512_cvtne2ps_pbh(hi_v, lo_v);
    _mm512_mask_storeu_epi32(out + j, lanes, _mm512_permutexvar_epi16(interleave, v));
  }
}

// The same from bfloat16 rows (nothing to round).
inline void interleave_pair(const BFloat16* lo, const BFloat16* hi, int64_t n, uint32_t* out) {
  const __m512i interleave = interleave_operands();
  for (int64_t j = 0; j < n; j += 16) {
    const __mmask16 lanes = first_lanes(n - j);
    const __m256i lo_v = _mm256_maskz_loadu_epi16(lanes, lo + j);
    const __m256i hi_v =
        hi != nullptr ? _mm256_maskz_loadu_epi16(lanes, hi + j) : _mm256_setzero_si256();
    // The index reads only the operands' low halves, which the casts leave undefined above.
    const __m512i v = _mm512_permutex2var_epi16(_mm512_castsi256_si512(lo_v), interleave,
                                                _mm512_castsi256_si512(hi_v));
    _mm512_mask_storeu_epi32(out + j, lanes, v);
  }
}

}  // namespace xtrain::kernels

#endif
