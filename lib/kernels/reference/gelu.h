// Plain-loop twin of lib/kernels/gelu.h: the textbook x * Phi(x) and its derivative in double,
// float32 storage only.
#pragma once

#include <cstdint>

namespace xtrain::kernels::reference {

void gelu_forward(int64_t n, const float* x, float* y);
void gelu_backward(int64_t n, const float* x, const float* dy, float* dx);

}  // namespace xtrain::kernels::reference
