// The CIFAR ResNets of He et al. 2015, section 4.2, for small images (32x32, 28x28): a 3x3 stem
// with 16 channels, three stages of n basic blocks with 16, 32 and 64 channels (depth = 6n + 2),
// option-A shortcuts (subsample + zero channels: no parameters), global pooling and fc.
#pragma once

#include <memory>

#include "lib/graph/graph.h"

namespace xtrain {

// depth is one of 20, 32, 44, 56, 110 (any 6n + 2 works).
std::shared_ptr<const Graph> cifar_resnet(int depth, int num_classes);

}  // namespace xtrain
