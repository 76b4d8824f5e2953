// Plain-loop twin of lib/kernels/global_avg_pool.h, summing in double.
#pragma once

#include "lib/kernels/global_avg_pool.h"

namespace xtrain::kernels::reference {

void global_avg_pool_forward(const GlobalAvgPoolShape& s, const float* x, float* y);
void global_avg_pool_backward(const GlobalAvgPoolShape& s, const float* dy, float* dx);

}  // namespace xtrain::kernels::reference
