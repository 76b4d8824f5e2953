// The direct Conv2d kernels' bfloat16 passes (conv2d_direct.h has their float32 twins and the rules
// of which shapes they serve), multiplying pairs of bfloat16 values with vdpbf16ps. They exist only
// in builds for a CPU with AVX512_BF16; elsewhere bfloat16 convolutions take the GEMM paths, which
// emulate the instruction. Each has the arguments of its pass in conv2d.h (bfloat16 precision; the
// backward-data pass never adds).
#pragma once

#if defined(__AVX512BF16__)

#include "lib/kernels/conv2d.h"
#include "lib/tensor/elements.h"

namespace xtrain::kernels {

// y = conv(x, weight) + bias (bias may be null), y float32 or bfloat16. The padded input copy and
// the kernel are rounded, paired along neighbouring taps of each kernel row.
void conv2d_direct_bf16_forward(const Conv2dShape& s, ConstElements x, const float* weight,
                                const float* bias, Elements y, float* workspace, const Exec& ex,
                                Precision precision);

// dx = conv_transpose(dy, weight) as conv2d_direct_backward_data computes it, from a rounded
// padded dy and paired phase kernels. A bfloat16 dx element is its float32 sum rounded once, as
// the tile holding it is stored.
void conv2d_direct_bf16_backward_data(const Conv2dShape& s, ConstElements dy, const float* weight,
                                      Elements dx, float* workspace, const Exec& ex,
                                      Precision precision, bool add);

// dweight += im2col(x)^T * dy, each element summed over pairs of neighbouring output pixels along a
// row (an odd row's last pixel paired with zeros), in order. Channel tiles: output channels in the
// vector lanes, taps in the rows, from a pixel-paired copy of the padded input.
void conv2d_direct_bf16_backward_weight(const Conv2dShape& s, ConstElements x, ConstElements dy,
                                        float* dweight, float* workspace, const Exec& ex,
                                        Precision precision);

// The same sums, in tap tiles (conv2d_tap_tiles_suit): taps in the vector lanes, output channels
// in the rows, pairs made in registers from x as it is (conv2d_tap_tiles_bf16.cpp).
void conv2d_tap_tiles_bf16_backward_weight(const Conv2dShape& s, ConstElements x, ConstElements dy,
                                           float* dweight, float* workspace, const Exec& ex,
                                           Precision precision);

}  // namespace xtrain::kernels

#endif
