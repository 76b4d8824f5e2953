// Plain-loop twin of lib/kernels/smooth_activations.h: the textbook definitions in double,
// float32 storage only.
#pragma once

#include <cstdint>

namespace xtrain::kernels::reference {

// silu(v) of one value (the BatchNorm reference's fused SiLU takes it too), and its derivative.
double silu(double v);
double silu_slope(double v);

void silu_forward(int64_t n, const float* x, float* y);
void silu_backward(int64_t n, const float* x, const float* dy, float* dx);
void sigmoid_forward(int64_t n, const float* x, float* y);
void sigmoid_backward(int64_t n, const float* x, const float* dy, float* dx);

}  // namespace xtrain::kernels::reference
