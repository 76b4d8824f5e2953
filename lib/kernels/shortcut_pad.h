// The option-A shortcut of the CIFAR ResNets (He et al. 2015, section 4.2): subsample by the
// stride and pad the new channels with zeros, split evenly before and after the old ones
// (as the widely used PyTorch reproduction does: F.pad(x[:, :, ::2, ::2], (.., pad, pad))).
//   x, dx: [N, H, W, C_in]   y, dy: [N, OH, OW, C_out], OH = (H - 1) / stride + 1
//   y[n, i, j, (C_out - C_in) / 2 + c] = x[n, i * stride, j * stride, c], other channels 0.
#pragma once

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

struct ShortcutPadShape {
  int n, h, w, c_in, c_out, stride;

  int out_h() const { return (h - 1) / stride + 1; }
  int out_w() const { return (w - 1) / stride + 1; }
  int pad_before() const { return (c_out - c_in) / 2; }
};

void shortcut_pad_forward(const ShortcutPadShape& s, const float* x, float* y, const Exec& ex);

// dx gathers dy at the kept positions and channels; dx is overwritten.
void shortcut_pad_backward(const ShortcutPadShape& s, const float* dy, float* dx, const Exec& ex);

}  // namespace xtrain::kernels
