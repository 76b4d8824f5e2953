// Torch layout: how a tensor of ours is laid out in a PyTorch state_dict. Conv2d weights are
// [KH, KW, C_in, C_out] here (what the GEMM wants) and OIHW [C_out, C_in, KH, KW] in PyTorch; a
// PointwiseLinear's weight is a 1x1 convolution's [1, 1, in, out] here and Linear's [out, in] in
// PyTorch; every other tensor (Linear's [out, in] weight included) has the same shape and order in
// both.
// Not here: names (they already are torchvision's) and files (checkpoint.h).
#pragma once

#include <cstdint>
#include <vector>

#include "lib/nn/layer.h"

namespace xtrain {

enum class TorchLayout {
  kSame,             // identical shape and element order
  kConvOIHW,         // ours [KH, KW, C_in, C_out], PyTorch's [C_out, C_in, KH, KW]
  kPointwiseLinear,  // ours [1, 1, in, out], PyTorch's [out, in]
};

TorchLayout torch_layout(const Layer& layer, const ParamSpec& spec);

// PyTorch's shape for a tensor whose shape here is `ours`.
std::vector<int64_t> torch_shape(TorchLayout layout, const Shape& ours);

// Copies ours.numel() floats, converting between our order and PyTorch's.
void to_torch(TorchLayout layout, const Shape& ours, const float* src, float* dst);
void from_torch(TorchLayout layout, const Shape& ours, const float* src, float* dst);

}  // namespace xtrain
