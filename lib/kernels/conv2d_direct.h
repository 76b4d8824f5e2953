// Direct Conv2d kernels for layers with few channels (ResNet stems, CIFAR-style ResNets, the
// first stages of ImageNet ResNets) or narrow groups (ResNeXt's 3x3 layers: a vector tile of
// output channels then reads only its group's inputs). There im2col + GEMM spends more time
// copying and packing the patch matrix than multiplying it: a patch element feeds only
// group_out / 16 vector FMAs. These kernels instead broadcast each input element straight from a
// zero-padded copy of the input into a register tile of output pixels x output channels, and read
// the weights in their stored [KH, KW, C_in / G, C_out] layout, so nothing is packed. Same layouts
// and contracts as conv2d.h.
#pragma once

#include <cstddef>

#include "lib/kernels/conv2d.h"
#include "lib/tensor/elements.h"

namespace xtrain::kernels {

// Whether the direct kernels are the faster choice for s in `precision` (up to 256 input channels
// a group in float32, 512 in bfloat16; vector-width output channels; in bfloat16 also ungrouped
// or with an even channel count a group, on a CPU with AVX512_BF16); conv2d.cpp dispatches on it.
bool conv2d_direct_suits(const Conv2dShape& s, Precision precision);

// Whether conv2d_direct_backward_data handles s: c_in a multiple of the vector width (dx is
// computed as convolutions with c_in outputs).
bool conv2d_direct_backward_data_suits(const Conv2dShape& s, Precision precision);

// Whether conv2d_direct_backward_weight is the faster choice for s in `precision` (bfloat16: on
// a CPU with AVX512_BF16): for stride-1 kernels past 1x1 of any width, for other kernels over at
// most 256 input channels a group, and for float32 pointwise layers that reduce channels; never
// for a 1x1 kernel in bfloat16.
bool conv2d_direct_backward_weight_suits(const Conv2dShape& s, Precision precision);

// Floats of scratch the direct passes that suit s need in either precision (0 when none does).
size_t conv2d_direct_workspace_floats(const Conv2dShape& s);

// y = conv(x, weight) + bias (bias may be null). y is overwritten, in float32 or (bfloat16
// precision only) bfloat16. In bfloat16 the padded input copy and the kernel are rounded, paired
// along neighbouring taps for vdpbf16ps.
void conv2d_direct_forward(const Conv2dShape& s, ConstElements x, const float* weight,
                           const float* bias, Elements y, float* workspace, const Exec& ex,
                           Precision precision);

// dx = conv_transpose(dy, weight), computed as convolutions of dy with the weight flipped in
// space and transposed in channels: one per phase of dx (stride x stride of them), each over the
// taps that feed that phase. dx is overwritten.
// dy and dx are float32 or (bfloat16 precision only) bfloat16; a bfloat16 dx element is its
// float32 sum rounded once, as the tile holding it is stored.
void conv2d_direct_backward_data(const Conv2dShape& s, ConstElements dy, const float* weight,
                                 Elements dx, float* workspace, const Exec& ex,
                                 Precision precision);

// dweight += im2col(x)^T * dy, each element summed over output pixels in order (in bfloat16, over
// pairs of neighbouring output pixels along a row, whose inputs and dy are paired for vdpbf16ps).
void conv2d_direct_backward_weight(const Conv2dShape& s, ConstElements x, ConstElements dy,
                                   float* dweight, float* workspace, const Exec& ex,
                                   Precision precision);

}  // namespace xtrain::kernels
