// Conv2d kernels. NHWC activations, batch folded into the GEMM's M dimension:
//   x: [N, H, W, C_in]   y, dy: [N, OH, OW, C_out]   weight: [KH, KW, C_in / G, C_out]
//   bias: [C_out]
// OH = (H + 2 * pad_h - KH) / stride + 1, OW = (W + 2 * pad_w - KW) / stride + 1. With G groups
// (ResNeXt), output channels [g * C_out / G, (g + 1) * C_out / G) see only input channels [g * C_in
// / G, (g + 1) * C_in / G), through weight columns of the same range. A 1x1 stride-1 unpadded
// ungrouped convolution is one GEMM [N*H*W, C_in] x [C_in, C_out]; one with few input channels
// per group, groups of one or two vectors of outputs and the same padding on every side runs the
// direct kernels of conv2d_direct.h; any other (Inception's 1x7 padded (0, 3) among them) goes
// through an im2col buffer in `workspace` and one GEMM per group (conv2d_gemm.h). Groups narrower
// than a vector are first joined into bands (conv2d_bands.h). conv2d.cpp lists, per pass and
// precision, which implementation serves which shapes. In bfloat16 (precision.h) every
// implementation rounds its operands as it packs or pads them and sums their products in float32.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "lib/parallel/exec.h"
#include "lib/tensor/elements.h"
#include "lib/tensor/precision.h"

namespace xtrain::kernels {

struct Conv2dShape {
  int n, h, w, c_in;
  int c_out, kh, kw, stride, pad_h, pad_w;
  int groups = 1;  // divides c_in and c_out

  int out_h() const { return (h + 2 * pad_h - kh) / stride + 1; }
  int out_w() const { return (w + 2 * pad_w - kw) / stride + 1; }
  int group_in() const { return c_in / groups; }                   // input channels of one group
  int group_out() const { return c_out / groups; }                 // output channels of one group
  int64_t rows() const { return int64_t{n} * out_h() * out_w(); }  // GEMM M
  int64_t patch() const { return int64_t{kh} * kw * group_in(); }  // GEMM K, per group
  bool is_pointwise() const {
    return kh == 1 && kw == 1 && stride == 1 && pad_h == 0 && pad_w == 0 && groups == 1;
  }
};

// Floats of scratch the three functions below need when dx is of dx_type (a bfloat16 dx that
// neither a direct pass nor the GEMM rounds as it stores is summed in float32 a chunk at a time,
// in this scratch), or when no dx is computed (none: the image's, an evaluation's).
size_t conv2d_workspace_floats(const Conv2dShape& s,
                               std::optional<ElementType> dx_type = ElementType::kFloat32);

// x and y are float32 or (in bfloat16 precision only) bfloat16: a bfloat16 plan stores the
// convolution outputs BatchNorm reads, and BatchNorm's outputs that convolutions read, so.
// y = conv(x, weight) + bias (bias may be null). y is overwritten.
void conv2d_forward(const Conv2dShape& s, ConstElements x, const float* weight, const float* bias,
                    Elements y, float* workspace, const Exec& ex,
                    Precision precision = Precision::kFloat32);

// dy and dx are float32 or (in bfloat16 precision only) bfloat16, as the values they are the
// gradients of: a bfloat16 plan keeps those gradients in bfloat16 too.

// dx = conv_transpose(dy, weight), overwriting dx, or with `add` (only where
// conv2d_backward_data_adds) dx += conv_transpose(dy, weight). A bfloat16 dx is summed in float32
// and rounded once (with `add`, after its old value is added).
void conv2d_backward_data(const Conv2dShape& s, ConstElements dy, const float* weight, Elements dx,
                          float* workspace, const Exec& ex,
                          Precision precision = Precision::kFloat32, bool add = false);

// Whether conv2d_backward_data can add into a dx of dx_type: a pointwise layer's, which its one
// GEMM adds to as it stores it, in less time than a pass summing the two after.
bool conv2d_backward_data_adds(const Conv2dShape& s, ElementType dx_type);

// dweight += im2col(x)^T * dy; dbias += column sums of dy (dbias may be null). Accumulates.
void conv2d_backward_weight(const Conv2dShape& s, ConstElements x, ConstElements dy, float* dweight,
                            float* dbias, float* workspace, const Exec& ex,
                            Precision precision = Precision::kFloat32);

}  // namespace xtrain::kernels
