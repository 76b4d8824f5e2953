// Plain-loop twin of lib/kernels/max_pool2d.h: records each output's argmax in the forward scan.
#pragma once

#include "lib/kernels/max_pool2d.h"

namespace xtrain::kernels::reference {

void max_pool2d_forward(const MaxPool2dShape& s, const float* x, float* y);
void max_pool2d_backward(const MaxPool2dShape& s, const float* x, const float* dy, float* dx);

}  // namespace xtrain::kernels::reference
