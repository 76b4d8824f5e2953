// Direct Conv2d kernels for layers with few channels (ResNet stems, CIFAR-style ResNets, the
// first stages of ImageNet ResNets) or narrow groups (ResNeXt's 3x3 layers: a vector tile of
// output channels then reads only its group's inputs). There im2col + GEMM spends more time
// copying and packing the patch matrix than multiplying it: a patch element feeds only
// group_out / 16 vector FMAs. These kernels instead broadcast each input element straight from a
// zero-padded copy of the input into a register tile of output pixels x output channels, and read
// the weights in their stored [KH, KW, C_in / G, C_out] layout, so nothing is packed. Same layouts
// and contracts as conv2d.h.
// Here: which shapes they serve (conv2d_direct_rules.cpp), their scratch, and the float32 passes
// (conv2d_direct.cpp). The bfloat16 passes are in conv2d_direct_bf16.h; conv2d.cpp's lists choose.
#pragma once

#include <cstddef>

#include "lib/kernels/conv2d.h"
#include "lib/tensor/elements.h"

namespace xtrain::kernels {

// Whether the direct forward pass is the faster choice for s in `precision`: up to 256 input
// channels a group in float32, 512 in bfloat16; output channels in whole vectors, groups at most
// two vectors wide; in bfloat16 also ungrouped or with an even channel count a group, in a build
// for AVX512_BF16.
bool conv2d_direct_suits(const Conv2dShape& s, Precision precision);

// Whether the direct backward-data pass handles s: where the forward suits, with c_in a multiple
// of the vector width (dx is computed as convolutions with c_in outputs).
bool conv2d_direct_backward_data_suits(const Conv2dShape& s, Precision precision);

// Whether the direct backward-weight pass is the faster choice for s in `precision` (bfloat16: in
// a build for AVX512_BF16): for float32 stride-1 kernels past 1x1 of any width, for other kernels
// past 1x1 over at most 256 input channels a group; never for a 1x1 kernel.
bool conv2d_direct_backward_weight_suits(const Conv2dShape& s, Precision precision);

// Whether the bfloat16 backward-weight pass puts taps in the vector lanes (tap tiles,
// conv2d_direct_bf16.h) where the direct pass suits: for up to 32 output channels.
bool conv2d_tap_tiles_suit(const Conv2dShape& s, Precision precision);

// Floats of scratch the direct passes that suit s need in either precision (0 when none does).
size_t conv2d_direct_workspace_floats(const Conv2dShape& s);

// The float32 passes, with the arguments of their passes in conv2d.h (float32 precision; the
// backward-data pass never adds, see conv2d_backward_data_adds).

// y = conv(x, weight) + bias (bias may be null). y is overwritten.
void conv2d_direct_forward(const Conv2dShape& s, ConstElements x, const float* weight,
                           const float* bias, Elements y, float* workspace, const Exec& ex,
                           Precision precision);

// dx = conv_transpose(dy, weight), computed as convolutions of dy with the weight flipped in
// space and transposed in channels: one per phase of dx (stride x stride of them), each over the
// taps that feed that phase. dx is overwritten.
void conv2d_direct_backward_data(const Conv2dShape& s, ConstElements dy, const float* weight,
                                 Elements dx, float* workspace, const Exec& ex, Precision precision,
                                 bool add);

// dweight += im2col(x)^T * dy, each element summed over output pixels in order.
void conv2d_direct_backward_weight(const Conv2dShape& s, ConstElements x, ConstElements dy,
                                   float* dweight, float* workspace, const Exec& ex,
                                   Precision precision);

}  // namespace xtrain::kernels
