// Plain-loop twin of lib/kernels/conv2d.h: direct convolution, one output at a time, in double.
// Slow on purpose; the tests compare the fast kernels with it.
#pragma once

#include "lib/kernels/conv2d.h"

namespace xtrain::kernels::reference {

void conv2d_forward(const Conv2dShape& s, const float* x, const float* weight, const float* bias,
                    float* y);
void conv2d_backward_data(const Conv2dShape& s, const float* dy, const float* weight, float* dx);
void conv2d_backward_weight(const Conv2dShape& s, const float* x, const float* dy, float* dweight,
                            float* dbias);

}  // namespace xtrain::kernels::reference
