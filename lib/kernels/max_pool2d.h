// MaxPool2d kernels. NHWC: x, dx [N, H, W, C]; y, dy [N, OH, OW, C], OH = (H + 2*pad - k)/stride
// + 1. Padding never wins (it acts as -infinity). Ties go to the first maximum in window scan order
// (kernel row, then column), as PyTorch's CPU kernel does.
#pragma once

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

// The largest kernel the backward takes: it keeps one window's offsets on the stack.
inline constexpr int kMaxPoolMaxKernel = 16;

struct MaxPool2dShape {
  int n, h, w, c;
  int kernel, stride, pad;

  int out_h() const { return (h + 2 * pad - kernel) / stride + 1; }
  int out_w() const { return (w + 2 * pad - kernel) / stride + 1; }
};

void max_pool2d_forward(const MaxPool2dShape& s, const float* x, float* y, const Exec& ex);

// dx = scatter of dy to each window's (first) maximum, found again from x. dx is overwritten.
// kernel <= kMaxPoolMaxKernel.
void max_pool2d_backward(const MaxPool2dShape& s, const float* x, const float* dy, float* dx,
                         const Exec& ex);

}  // namespace xtrain::kernels
