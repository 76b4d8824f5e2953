// Plain-loop twin of lib/kernels/avg_pool2d.h: element by element, bins from the definitions.
#pragma once

#include "lib/kernels/avg_pool2d.h"

namespace xtrain::kernels::reference {

void avg_pool2d_forward(const AvgPool2dShape& s, const float* x, float* y);
void avg_pool2d_backward(const AvgPool2dShape& s, const float* dy, float* dx);

}  // namespace xtrain::kernels::reference
