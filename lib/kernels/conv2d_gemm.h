// Conv2d as matrix products (gemm.h): a pointwise layer is one GEMM over its pixels as rows; any
// other layer gathers its receptive fields a tile of output rows at a time into an im2col buffer in
// the workspace (and scatters them back, col2im, for dx), one GEMM per group. These paths take
// every shape the direct kernels do not (conv2d.cpp's lists say which). Each function has the
// arguments of its pass in conv2d.h, and the same contract.
#pragma once

#include <cstddef>

#include "lib/kernels/conv2d.h"

namespace xtrain::kernels {

// y = conv(x, weight) + bias: one GEMM (pointwise), or an im2col tile and a GEMM per group. A
// bfloat16 y comes rounded from the GEMM's tiles where the product is one GEMM block without a
// bias, else from a float32 tile of the workspace rounded after.
void gemm_forward(const Conv2dShape& s, ConstElements x, const float* weight, const float* bias,
                  Elements y, float* workspace, const Exec& ex, Precision precision);

// dx = dy W^T (+ dx with `add`) for a pointwise layer: one GEMM, which adds to dx as it stores its
// tiles and rounds a bfloat16 dx once (pointwise_dx_rounded_by_gemm).
void pointwise_backward_data(const Conv2dShape& s, ConstElements dy, const float* weight,
                             Elements dx, float* workspace, const Exec& ex, Precision precision,
                             bool add);

// Whether the one GEMM of a pointwise layer's backward-data rounds a bfloat16 dx as it stores it:
// where its product over c_out is one GEMM block.
bool pointwise_dx_rounded_by_gemm(const Conv2dShape& s, Precision precision);

// dx = col2im(dy W^T), a tile of output rows and a group at a time, into a float32 dx.
void col2im_backward_data(const Conv2dShape& s, ConstElements dy, const float* weight, Elements dx,
                          float* workspace, const Exec& ex, Precision precision, bool add);

// A bfloat16 dx that neither a direct pass nor a pointwise layer's one GEMM rounds as it stores
// it: computed in float32 a chunk of images at a time (conv2d_backward_data into a float32 dx in
// the workspace) and each chunk rounded once into dx, as PyTorch rounds its convolutions' outputs.
// Every path then sums as for a float32 dx, and the scratch stays a few MB whatever the batch.
void backward_data_in_float32_chunks(const Conv2dShape& s, ConstElements dy, const float* weight,
                                     Elements dx, float* workspace, const Exec& ex,
                                     Precision precision, bool add);

// The chunk of images backward_data_in_float32_chunks takes at a time: s over that many images,
// never fewer than one.
Conv2dShape rounded_dx_chunk(const Conv2dShape& s);

// dx's elements, [n, h, w, c_in], rounded up to whole cache lines.
size_t dx_floats(const Conv2dShape& s);

// dweight += im2col(x)^T * dy: one GEMM over x^T read in place (pointwise), or an im2col tile and
// a GEMM per group.
void gemm_backward_weight(const Conv2dShape& s, ConstElements x, ConstElements dy, float* dweight,
                          float* workspace, const Exec& ex, Precision precision);

// Floats of scratch the GEMM paths need for s: an im2col tile (none for a pointwise layer) and a
// float32 tile of products for a bfloat16 y.
size_t gemm_workspace_floats(const Conv2dShape& s);

}  // namespace xtrain::kernels
