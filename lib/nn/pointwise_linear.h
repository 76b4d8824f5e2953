// PointwiseLinear: torch.nn.Linear(in_features, out_features) applied to every pixel's channels
// of an NHWC map, as ConvNeXt's blocks apply theirs between two permutes (block.3 and block.5).
// Over NHWC rows that is a 1x1 convolution with a bias, and it runs as one: Conv2d's GEMM paths,
// bfloat16 storage, gradients added in place. Only its PyTorch face differs: the type "Linear",
// and a weight that checkpoints hold as Linear's [out, in] (torch_layout) where ours is the
// convolution's [1, 1, in, out].
// Not here: Linear on [N, C] rows (linear.h), the convolution's kernels (conv2d.h).
#pragma once

#include <string>

#include "lib/nn/conv2d.h"

namespace xtrain {

class PointwiseLinear : public Conv2d {
 public:
  PointwiseLinear(std::string name, int in_features, int out_features, WeightInit init = {})
      : Conv2d(std::move(name), in_features, out_features, /*kernel_size=*/1, /*stride=*/1,
               /*padding=*/0, /*bias=*/true, /*groups=*/1, init) {}

  const char* type() const override { return "Linear"; }
};

}  // namespace xtrain
