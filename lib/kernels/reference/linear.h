// Plain-loop twin of lib/kernels/linear.h, accumulating in double.
#pragma once

#include "lib/kernels/linear.h"

namespace xtrain::kernels::reference {

void linear_forward(const LinearShape& s, const float* x, const float* weight, const float* bias,
                    float* y);
void linear_backward_data(const LinearShape& s, const float* dy, const float* weight, float* dx);
void linear_backward_weight(const LinearShape& s, const float* x, const float* dy, float* dweight,
                            float* dbias);

}  // namespace xtrain::kernels::reference
