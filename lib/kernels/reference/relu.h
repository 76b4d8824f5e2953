// Plain-loop twin of lib/kernels/relu.h.
#pragma once

#include <cstdint>

namespace xtrain::kernels::reference {

void relu_forward(int64_t n, const float* x, float* y);
void relu_backward(int64_t n, const float* y, const float* dy, float* dx);

}  // namespace xtrain::kernels::reference
