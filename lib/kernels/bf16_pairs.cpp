#include "lib/kernels/bf16_pairs.h"

#include "lib/tensor/bfloat16.h"

#if !defined(__AVX512BF16__)

namespace xtrain::kernels {

void convert_to_bf16(const float* src, int64_t n, uint16_t* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = to_bfloat16(src[i]).bits;
}

}  // namespace xtrain::kernels

#else

namespace xtrain::kernels {

void convert_to_bf16(const float* src, int64_t n, uint16_t* dst) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 lanes = first_lanes(n - i);
    const __m256i v = (__m256i)_mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(lanes, src + i));
    _mm256_mask_storeu_epi16(dst + i, lanes, v);
  }
}

}  // namespace xtrain::kernels

#endif
