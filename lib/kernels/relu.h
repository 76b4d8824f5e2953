// ReLU kernels over n contiguous floats. y may alias x (in place).
#pragma once

#include <cstdint>

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

// y = max(x, 0)
void relu_forward(int64_t n, const float* x, float* y, const Exec& ex);

// dx = y > 0 ? dy : 0, from the forward's output y. dx may alias dy.
void relu_backward(int64_t n, const float* y, const float* dy, float* dx, const Exec& ex);

}  // namespace xtrain::kernels
