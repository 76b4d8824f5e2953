// torchvision's ConvNeXt (Liu et al. 2022), Tiny, Small, Base and Large: a 4x4 stride-4 stem
// convolution with LayerNorm2d, four stages of CNBlocks (a depthwise 7x7 convolution, LayerNorm
// over channels, Linear to 4x the width, GELU, Linear back, layer scale, the block's input
// added) with a LayerNorm2d and a 2x2 stride-2 convolution between stages, the average over the
// grid, and a classifier LayerNorm2d - Flatten - Linear. LayerNorm eps 1e-6 throughout.
// torchvision's state_dict names and initialization (truncated normal, std 0.02, zero biases),
// and its training defaults' stochastic depth on each block's branch after the layer scale
// ("row" mode, the probability rising linearly over the blocks from 0 to 0.1 for Tiny, 0.4 Small,
// 0.5 Base and Large).
// Not here: the layers (lib/nn: LayerNorm, LayerScale, StochasticDepth, Activation's GELU).
#pragma once

#include <memory>

#include "lib/graph/graph.h"

namespace xtrain {

std::shared_ptr<const Graph> convnext_tiny(int num_classes);
std::shared_ptr<const Graph> convnext_small(int num_classes);
std::shared_ptr<const Graph> convnext_base(int num_classes);
std::shared_ptr<const Graph> convnext_large(int num_classes);

}  // namespace xtrain
