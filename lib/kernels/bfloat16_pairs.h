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
void convert_to_bfloat16(const float* src, int64_t n, uint16_t* dst);

}  // namespace xtrain::kernels

#if defined(__AVX512BF16__)

#include <immintrin.h>

#include <algorithm>

namespace xtrain::kernels {

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

// out[j] = bfloat16(lo[j]) | bfloat16(hi[j]) << 16 for j < n; hi null: zeros.
void interleave_pair(const float* lo, const float* hi, int64_t n, uint32_t* out);
// The same from bfloat16 rows (nothing to round).
void interleave_pair(const BFloat16* lo, const BFloat16* hi, int64_t n, uint32_t* out);

}  // namespace xtrain::kernels

#endif
