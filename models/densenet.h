// torchvision's DenseNets (Huang et al. 2017, DenseNet-BC): dense blocks whose layers each see the
// concatenation of every earlier feature map of the block (BatchNorm, ReLU, 1x1 convolution to
// 4 x growth channels, BatchNorm, ReLU, 3x3 convolution to growth channels), joined by
// transitions that halve the channels and the grid. torchvision's state_dict names and
// initialization (memory_efficient=False, drop_rate 0: the same network).
#pragma once

#include <memory>

#include "lib/graph/graph.h"

namespace xtrain {

std::shared_ptr<const Graph> densenet121(int num_classes);
std::shared_ptr<const Graph> densenet161(int num_classes);
std::shared_ptr<const Graph> densenet169(int num_classes);
std::shared_ptr<const Graph> densenet201(int num_classes);

}  // namespace xtrain
