// Plain-loop twin of lib/kernels/layer_scale.h, float32 only, sums in double.
#pragma once

#include "lib/kernels/layer_scale.h"

namespace xtrain::kernels::reference {

void layer_scale_forward(const LayerScaleShape& s, const float* x, const float* scale, float* y);
// dx and dscale are overwritten.
void layer_scale_backward(const LayerScaleShape& s, const float* x, const float* scale,
                          const float* dy, float* dx, float* dscale);

}  // namespace xtrain::kernels::reference
