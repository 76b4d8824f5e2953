// Conv2d kernels (groups = 1). NHWC activations, batch folded into the GEMM's M dimension:
//   x: [N, H, W, C_in]   y, dy: [N, OH, OW, C_out]   weight: [KH, KW, C_in, C_out]   bias: [C_out]
// OH = (H + 2 * pad - KH) / stride + 1 (same for OW). A 1x1 stride-1 unpadded convolution is one
// GEMM [N*H*W, C_in] x [C_in, C_out]; one with few input channels runs the direct kernels of
// conv2d_direct.h; any other goes through an im2col buffer in `workspace` and the GEMM.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

struct Conv2dShape {
  int n, h, w, c_in;
  int c_out, kh, kw, stride, pad;

  int out_h() const { return (h + 2 * pad - kh) / stride + 1; }
  int out_w() const { return (w + 2 * pad - kw) / stride + 1; }
  int64_t rows() const { return int64_t{n} * out_h() * out_w(); }  // GEMM M
  int64_t patch() const { return int64_t{kh} * kw * c_in; }        // GEMM K
  bool is_pointwise() const { return kh == 1 && kw == 1 && stride == 1 && pad == 0; }
};

// Floats of scratch the three functions below need (0 for a pointwise convolution).
size_t conv2d_workspace_floats(const Conv2dShape& s);

// y = conv(x, weight) + bias (bias may be null). y is overwritten.
void conv2d_forward(const Conv2dShape& s, const float* x, const float* weight, const float* bias,
                    float* y, float* workspace, const Exec& ex);

// dx = conv_transpose(dy, weight). dx is overwritten.
void conv2d_backward_data(const Conv2dShape& s, const float* dy, const float* weight, float* dx,
                          float* workspace, const Exec& ex);

// dweight += im2col(x)^T * dy; dbias += column sums of dy (dbias may be null). Accumulates.
void conv2d_backward_weight(const Conv2dShape& s, const float* x, const float* dy, float* dweight,
                            float* dbias, float* workspace, const Exec& ex);

}  // namespace xtrain::kernels
