// Plain-loop twin of lib/kernels/layer_norm.h: the textbook formulas in double, float32 only.
#pragma once

#include "lib/kernels/layer_norm.h"

namespace xtrain::kernels::reference {

void layer_norm_forward(const LayerNormShape& s, const float* x, const float* weight,
                        const float* bias, float* y);
// dx, dweight and dbias are overwritten.
void layer_norm_backward(const LayerNormShape& s, const float* x, const float* dy,
                         const float* weight, float* dx, float* dweight, float* dbias);

}  // namespace xtrain::kernels::reference
