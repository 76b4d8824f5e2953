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

namespace xtrain::kernels {

// out[j] = bfloat16(lo[j]) | bfloat16(hi[j]) << 16 for j < n; hi null: zeros.
void interleave_pair(const float* lo, const float* hi, int64_t n, uint32_t* out);
// The same from bfloat16 rows (nothing to round).
void interleave_pair(const BFloat16* lo, const BFloat16* hi, int64_t n, uint32_t* out);

}  // namespace xtrain::kernels

#endif
