// MaxPool2d kernels. NHWC: x, dx [N, H, W, C]; y, dy [N, OH, OW, C] (their rows, a pixel's C
// channels, may be columns of wider rows: y_stride), OH = (H + 2*pad - k)/stride
// + 1, rounded up instead with ceil_mode (kernels/pool_size.h), whose last window may run past the
// image: it takes the maximum of the part inside. Padding never wins (it acts as -infinity). Ties
// go to the first maximum in window scan order (kernel row, then column), as PyTorch's CPU kernel
// does.
#pragma once

#include "lib/kernels/pool_size.h"
#include "lib/parallel/exec.h"
#include "lib/tensor/elements.h"

namespace xtrain::kernels {

// The largest kernel the backward takes: it keeps one window's offsets on the stack.
inline constexpr int kMaxPoolMaxKernel = 16;

struct MaxPool2dShape {
  int n, h, w, c;
  int kernel, stride, pad;
  bool ceil_mode = false;
  int64_t y_stride = 0;  // elements between the rows (pixels) of y and dy; 0: c

  int64_t y_row() const { return y_stride > 0 ? y_stride : c; }
  int out_h() const { return pooled_size(h, kernel, stride, pad, ceil_mode); }
  int out_w() const { return pooled_size(w, kernel, stride, pad, ceil_mode); }
};

// x, dx and y, dy are float32 or (in bfloat16 plans) bfloat16, each pair as the plan stores it.
// A maximum is one of its window's values, so a bfloat16 y holds it exactly from a bfloat16 x.
void max_pool2d_forward(const MaxPool2dShape& s, ConstElements x, Elements y, const Exec& ex);

// dx = scatter of dy to each window's (first) maximum, found again from x. dx is overwritten. A
// bfloat16 dx is summed in float32, `kernel` rows at a time per thread in its Exec::scratch slice
// (allocated for the call outside plans, or when the rows do not fit), and rounded once.
// kernel <= kMaxPoolMaxKernel.
void max_pool2d_backward(const MaxPool2dShape& s, ConstElements x, ConstElements dy, Elements dx,
                         const Exec& ex);

}  // namespace xtrain::kernels
