// Plain-loop twin of lib/kernels/channel_scale.h, float32 only, sums in double.
#pragma once

#include "lib/kernels/channel_scale.h"

namespace xtrain::kernels::reference {

void channel_scale_forward(const ChannelScaleShape& s, const float* x, const float* scale,
                           float* y);
void channel_scale_backward(const ChannelScaleShape& s, const float* x, const float* scale,
                            const float* dy, float* dx, float* dscale);

}  // namespace xtrain::kernels::reference
