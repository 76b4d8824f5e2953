// torchvision's ShuffleNetV2 (Ma et al. 2018) at widths 0.5, 1.0, 1.5 and 2.0: a strided 3x3
// stem and a max-pool, three stages of blocks that split the channels in two, transform one half
// (a 1x1 convolution, a depthwise 3x3, another 1x1, each normalized) and shuffle the halves
// together again (the first block of a stage transforms the whole input twice, halving the grid),
// a 1x1 convolution, the average over the grid and one Linear layer. torchvision's state_dict
// names and PyTorch's default initialization (torchvision has no init loop for it).
// Not here: the channel split and shuffle themselves (nn/channel_slice.h, nn/channel_shuffle.h).
#pragma once

#include <memory>

#include "lib/graph/graph.h"

namespace xtrain {

std::shared_ptr<const Graph> shufflenet_v2_x0_5(int num_classes);
std::shared_ptr<const Graph> shufflenet_v2_x1_0(int num_classes);
std::shared_ptr<const Graph> shufflenet_v2_x1_5(int num_classes);
std::shared_ptr<const Graph> shufflenet_v2_x2_0(int num_classes);

}  // namespace xtrain
