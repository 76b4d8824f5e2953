// The output side of a pooling window sweep, as torch's pooling_output_shape computes it.
#pragma once

namespace xtrain::kernels {

// floor((in + 2 pad - kernel) / stride) + 1, or with ceil_mode the ceiling, less one when the
// last window would start past the input and its left padding (it would see padding only).
// 0 when the input is too small for one window. With ceil_mode an input narrower than the kernel
// may still give one, which sees part of the input (torch rounds the span towards -infinity).
constexpr int pooled_size(int in, int kernel, int stride, int pad, bool ceil_mode) {
  const int span = in + 2 * pad - kernel + (ceil_mode ? stride - 1 : 0);
  if (span < 0) return 0;
  int out = span / stride + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

}  // namespace xtrain::kernels
