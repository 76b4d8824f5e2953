// Plain-loop twin of lib/kernels/activations.h: the textbook definitions in double, float32
// storage only. The derivatives at the kinks are the fast kernels' (the Hardswish's from the
// right, the Hardsigmoid's and the ReLU6's 0).
#pragma once

#include <cstdint>

#include "lib/kernels/activations.h"

namespace xtrain::kernels::reference {

// a of one value, and its derivative there (the BatchNorm reference's fused activations take
// them too).
double activation(Activation a, double v);
double activation_slope(Activation a, double v);

void activation_forward(Activation a, int64_t n, const float* x, float* y);
void activation_backward(Activation a, int64_t n, const float* x, const float* dy, float* dx);

}  // namespace xtrain::kernels::reference
