// Precision: what the matrix products of convolutions and Linear layers multiply, an element type
// (element_type.h). kFloat32 multiplies float32 values as they are; kBFloat16 rounds both
// operands to bfloat16 and sums the (exact) products in float32, as PyTorch's CPU autocast and
// the AVX512_BF16 instructions do. Everything else (BatchNorm, the loss, gradients' sums, the
// optimizer) stays float32.
#pragma once

#include "lib/tensor/element_type.h"

namespace xtrain {

using Precision = ElementType;

}  // namespace xtrain
