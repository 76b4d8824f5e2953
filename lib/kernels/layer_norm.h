// LayerNorm over the last dimension, torch.nn.LayerNorm(C) on rows of C values: each row
// normalized by its own mean and biased variance, then scaled and shifted per channel. NHWC
// activations are rows of their pixels, so this is also ConvNeXt's LayerNorm2d over channels.
// x, y, dy and dx are [M, C], float32 or bfloat16 (dx of x's type, dy of y's; the arithmetic is
// float32, a row's statistics are summed in double); weight, bias, dweight and dbias are float32
// [C]; mean and rstd [M] are saved from the forward for the backward. The sums of dweight and
// dbias run over fixed chunks of rows whose partial sums (double, in the workspace) are added in
// chunk order, so the bits do not depend on the thread count.
// Not here: BatchNorm (batchnorm.h), which normalizes each channel over the batch.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lib/parallel/exec.h"
#include "lib/tensor/elements.h"

namespace xtrain::kernels {

struct LayerNormShape {
  int64_t m;  // rows
  int c;      // values per row, normalized together
  float eps;
};

// Floats of scratch layer_norm_backward needs: the per-chunk partial sums.
size_t layer_norm_workspace_floats(const LayerNormShape& s);

// Per row: mean and rstd = 1 / sqrt(var + eps), y = (x * rstd - mean * rstd) * weight + bias
// (torch's order of operations). y, mean and rstd are overwritten.
void layer_norm_forward(const LayerNormShape& s, ConstElements x, const float* weight,
                        const float* bias, Elements y, float* mean, float* rstd, const Exec& ex);

// With xhat = (x - mean) * rstd and g = dy * weight, per row:
//   dx = rstd * (g - mean(g) - xhat * mean(g * xhat))
// and over all rows: dweight += sum(dy * xhat), dbias += sum(dy). dx is overwritten (skipped
// when null) and may be dy itself (one buffer, one element type): a row of dy is read before its
// row of dx is written. dweight and dbias accumulate (the step zeroes all grads once).
void layer_norm_backward(const LayerNormShape& s, ConstElements x, ConstElements dy,
                         const float* weight, const float* mean, const float* rstd, Elements dx,
                         float* dweight, float* dbias, float* workspace, const Exec& ex);

}  // namespace xtrain::kernels
