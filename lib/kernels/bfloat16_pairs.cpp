#include "lib/kernels/bfloat16_pairs.h"

#include "lib/tensor/bfloat16.h"

#if !defined(__AVX512BF16__)

namespace xtrain::kernels {

void convert_to_bfloat16(const float* src, int64_t n, uint16_t* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = to_bfloat16(src[i]).bits;
}

}  // namespace xtrain::kernels

#else

namespace xtrain::kernels {
namespace {

// Lane 2i takes element i of the low half (the lo row), lane 2i + 1 element i of the high half.
__m512i interleave_halves() {
  alignas(64) static constexpr int16_t kInterleave[32] = {
      0, 16, 1, 17, 2,  18, 3,  19, 4,  20, 5,  21, 6,  22, 7,  23,
      8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
  return _mm512_load_si512(kInterleave);
}

}  // namespace

void convert_to_bfloat16(const float* src, int64_t n, uint16_t* dst) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 lanes = first_lanes(n - i);
    const __m256i v = (__m256i)_mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(lanes, src + i));
    _mm256_mask_storeu_epi16(dst + i, lanes, v);
  }
}

void interleave_pair(const float* lo, const float* hi, int64_t n, uint32_t* out) {
  const __m512i interleave = interleave_halves();
  for (int64_t j = 0; j < n; j += 16) {
    const __mmask16 lanes = first_lanes(n - j);
    const __m512 lo_v = _mm512_maskz_loadu_ps(lanes, lo + j);
    const __m512 hi_v = hi != nullptr ? _mm512_maskz_loadu_ps(lanes, hi + j) : _mm512_setzero_ps();
    const __m512i v = (__m512i)_mm512_cvtne2ps_pbh(hi_v, lo_v);
    _mm512_mask_storeu_epi32(out + j, lanes, _mm512_permutexvar_epi16(interleave, v));
  }
}

void interleave_pair(const BFloat16* lo, const BFloat16* hi, int64_t n, uint32_t* out) {
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
