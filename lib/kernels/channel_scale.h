// Channel scale: each image's channels multiplied by one value each, y[n, p, c] = x[n, p, c] *
// scale[n, c] over the p < HW pixels of image n, as SqueezeExcitation's `scale * input` (scale
// [N, C, 1, 1] in PyTorch, broadcast over the grid). x, y, dy and dx are [N, HW, C], float32 or
// bfloat16 (dx of x's type, dy of y's; the arithmetic is float32); scale and dscale are float32
// [N, C]. The sums of dscale run over each image's pixels in order, in double, so the bits do not
// depend on the thread count.
// Not here: computing the scale (SqueezeExcitation's pooling, convolutions and gate: GraphBuilder).
#pragma once

#include <cstdint>

#include "lib/parallel/exec.h"
#include "lib/tensor/elements.h"

namespace xtrain::kernels {

struct ChannelScaleShape {
  int n;
  int64_t hw;
  int c;
};

// y = x * scale, broadcast over each image's pixels.
void channel_scale_forward(const ChannelScaleShape& s, ConstElements x, const float* scale,
                           Elements y, const Exec& ex);

// dx[n, p, c] = dy[n, p, c] * scale[n, c]    dscale[n, c] = sum over p of dy[n, p, c] * x[n, p, c]
// Both are overwritten; either may be skipped (null). dx may be dy itself (one buffer, one
// element type): every element of dy is read before dx's is written.
void channel_scale_backward(const ChannelScaleShape& s, ConstElements x, const float* scale,
                            ConstElements dy, Elements dx, float* dscale, const Exec& ex);

}  // namespace xtrain::kernels
