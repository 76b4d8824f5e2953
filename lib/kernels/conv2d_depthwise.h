// Depthwise Conv2d kernels: one filter per channel (groups == c_in == c_out, MobileNetV2's 3x3
// layers). An output element is the sum of KH * KW products of its own channel, so a pass is, for
// every kernel tap and every pixel it reaches, one element-wise multiply-add along the channels,
// NHWC's contiguous innermost dimension: vectors run across channels, the last few one at a time.
// Bands (conv2d_bands.h) would widen every channel into a vector-wide block-diagonal group and
// multiply mostly zeros. Any kernel size, stride and padding per axis; layouts and contracts as
// conv2d.h, with weight [KH, KW, 1, C] and dweight alike.
// Not here: which pass runs which implementation (conv2d.cpp); bfloat16 (its lists keep the
// bands).
#pragma once

#include <cstddef>

#include "lib/kernels/conv2d.h"
#include "lib/tensor/elements.h"

namespace xtrain::kernels {

// Whether s is depthwise (each channel its own group, as many outputs as inputs) and asked in
// float32: these kernels read and write float32 only.
bool conv2d_depthwise_suits(const Conv2dShape& s, Precision precision);

// Floats of scratch the depthwise passes need on a depthwise s (0 on any other): backward-weight's
// partial sums, one [KH, KW, C] block per fixed block of output rows.
size_t conv2d_depthwise_workspace_floats(const Conv2dShape& s);

// The float32 passes, with the arguments of their passes in conv2d.h. Each output element is
// summed by one thread over the taps in order, so the bits do not depend on the thread count.

// y = conv(x, weight) + bias (bias may be null). y is overwritten.
void conv2d_depthwise_forward(const Conv2dShape& s, ConstElements x, const float* weight,
                              const float* bias, Elements y, float* workspace, const Exec& ex,
                              Precision precision);

// dx = conv_transpose(dy, weight): each row of dx gathers the rows of dy its taps reach. dx is
// overwritten, or with `add` added to.
void conv2d_depthwise_backward_data(const Conv2dShape& s, ConstElements dy, const float* weight,
                                    Elements dx, float* workspace, const Exec& ex,
                                    Precision precision, bool add);

// dweight += im2col(x)^T * dy on each channel's diagonal. The output rows fall into a number of
// blocks fixed by the shape; each block's sum (rows in order) goes to its own partial in the
// workspace, and the partials are added in block order, so the bits do not depend on the thread
// count either.
void conv2d_depthwise_backward_weight(const Conv2dShape& s, ConstElements x, ConstElements dy,
                                      float* dweight, float* workspace, const Exec& ex,
                                      Precision precision);

}  // namespace xtrain::kernels
