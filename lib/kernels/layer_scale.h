// Layer scale: every row's channels multiplied by one learned value per channel, y[r, c] = x[r, c]
// * scale[c], ConvNeXt's `self.layer_scale * self.block(input)` (scale [C, 1, 1] in PyTorch,
// broadcast over the batch and the grid; NHWC rows here). x, y, dy and dx are [M, C], float32 or
// bfloat16 (dx of x's type, dy of y's; the arithmetic is float32); scale and dscale are float32
// [C]. dscale sums over fixed chunks of rows whose partial sums (double, in the workspace) are
// added in chunk order, so the bits do not depend on the thread count.
// Not here: a scale per image (channel_scale.h, squeeze-and-excitation's).
#pragma once

#include <cstddef>
#include <cstdint>

#include "lib/parallel/exec.h"
#include "lib/tensor/elements.h"

namespace xtrain::kernels {

struct LayerScaleShape {
  int64_t m;  // rows (pixels of the batch)
  int c;
};

// Floats of scratch layer_scale_backward needs: the per-chunk partial sums.
size_t layer_scale_workspace_floats(const LayerScaleShape& s);

// y = x * scale, broadcast over the rows. y may be x itself.
void layer_scale_forward(const LayerScaleShape& s, ConstElements x, const float* scale, Elements y,
                         const Exec& ex);

// dx[r, c] = dy[r, c] * scale[c], overwritten (skipped when null); dx may be dy itself (one
// buffer, one element type). dscale[c] += sum over r of dy[r, c] * x[r, c] (accumulates: the step
// zeroes all grads once).
void layer_scale_backward(const LayerScaleShape& s, ConstElements x, const float* scale,
                          ConstElements dy, Elements dx, float* dscale, float* workspace,
                          const Exec& ex);

}  // namespace xtrain::kernels
