// Plain-loop twin of lib/kernels/hard_activations.h: the textbook piecewise definitions in
// double, float32 storage only.
#pragma once

#include <cstdint>

namespace xtrain::kernels::reference {

// hardswish(v) of one value (the BatchNorm reference's fused Hardswish takes it too).
double hardswish(double v);

void hardswish_forward(int64_t n, const float* x, float* y);
void hardswish_backward(int64_t n, const float* x, const float* dy, float* dx);
void hardsigmoid_forward(int64_t n, const float* x, float* y);
void hardsigmoid_backward(int64_t n, const float* x, const float* dy, float* dx);

}  // namespace xtrain::kernels::reference
