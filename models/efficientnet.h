// torchvision's EfficientNet (Tan and Le 2019), B0 to B7, and EfficientNetV2 (Tan and Le 2021),
// S, M and L: a strided 3x3 stem with SiLU, stages of MBConv blocks (a 1x1 expansion where the
// width changes, a depthwise convolution, squeeze-and-excitation with a SiLU and a Sigmoid gate,
// a linear 1x1 projection; the block's input added where the shape allows, its branch dropped per
// sample by stochastic depth) and, in V2's first stages, FusedMBConv blocks (one full convolution
// in place of the expansion and the depthwise one), a 1x1 convolution with SiLU, the average
// over the grid, Dropout and a Linear classifier. B0 to B7 scale B0's widths and depths by
// torchvision's multipliers. BatchNorm as torchvision sets it: PyTorch's defaults for B0 to B4,
// eps 0.001 and momentum 0.01 for B5 to B7, eps 0.001 for V2. torchvision's state_dict names and
// initialization, and its stochastic depth probabilities: 0.2 times the block's index over the
// number of blocks.
// Not here: the stochastic depth's mask (nn/stochastic_depth.h).
#pragma once

#include <memory>

#include "lib/graph/graph.h"

namespace xtrain {

std::shared_ptr<const Graph> efficientnet_b0(int num_classes);
std::shared_ptr<const Graph> efficientnet_b1(int num_classes);
std::shared_ptr<const Graph> efficientnet_b2(int num_classes);
std::shared_ptr<const Graph> efficientnet_b3(int num_classes);
std::shared_ptr<const Graph> efficientnet_b4(int num_classes);
std::shared_ptr<const Graph> efficientnet_b5(int num_classes);
std::shared_ptr<const Graph> efficientnet_b6(int num_classes);
std::shared_ptr<const Graph> efficientnet_b7(int num_classes);
std::shared_ptr<const Graph> efficientnet_v2_s(int num_classes);
std::shared_ptr<const Graph> efficientnet_v2_m(int num_classes);
std::shared_ptr<const Graph> efficientnet_v2_l(int num_classes);

}  // namespace xtrain
