// Global average pooling, AdaptiveAvgPool2d(1) + flatten: x, dx [N, HW, C] -> y, dy [N, C].
#pragma once

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

struct GlobalAvgPoolShape {
  int n, hw, c;
};

// y[n, c] = mean over hw of x[n, hw, c]
void global_avg_pool_forward(const GlobalAvgPoolShape& s, const float* x, float* y, const Exec& ex);

// dx[n, i, c] = dy[n, c] / HW. dx is overwritten.
void global_avg_pool_backward(const GlobalAvgPoolShape& s, const float* dy, float* dx,
                              const Exec& ex);

}  // namespace xtrain::kernels
