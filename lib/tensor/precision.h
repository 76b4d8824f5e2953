// Precision: what the matrix products of convolutions and Linear layers multiply. kFloat32
// multiplies float32 values as they are; kBFloat16 rounds both operands to bfloat16 and sums the
// (exact) products in float32, as PyTorch's CPU autocast and the AVX512_BF16 instructions do.
// Everything else (BatchNorm, the loss, gradients' sums, the optimizer) stays float32.
#pragma once

namespace xtrain {

enum class Precision { kFloat32, kBFloat16 };

inline const char* name(Precision p) { return p == Precision::kFloat32 ? "float32" : "bfloat16"; }

}  // namespace xtrain
