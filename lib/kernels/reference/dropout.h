// Plain-loop twin of lib/kernels/dropout.h, element by element with dropout_keeps.
#pragma once

#include "lib/kernels/dropout.h"

namespace xtrain::kernels::reference {

void dropout_forward(const DropoutShape& s, const float* x, float* y);
void dropout_backward(const DropoutShape& s, const float* dy, float* dx);

}  // namespace xtrain::kernels::reference
