// Plain-loop twin of lib/kernels/stochastic_depth.h, sample by sample with
// stochastic_depth_keeps, float32 storage only.
#pragma once

#include "lib/kernels/stochastic_depth.h"

namespace xtrain::kernels::reference {

void stochastic_depth_forward(const StochasticDepthShape& s, const float* x, float* y);
void stochastic_depth_backward(const StochasticDepthShape& s, const float* dy, float* dx);

}  // namespace xtrain::kernels::reference
