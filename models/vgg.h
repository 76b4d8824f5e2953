// torchvision's VGG (Simonyan & Zisserman 2014) at depths 11, 13, 16 and 19, with or without
// BatchNorm after each convolution, and AlexNet (its one-GPU variant of Krizhevsky 2014, as
// torchvision builds it): convolutions and max-pooling, an adaptive average pooling to a fixed
// grid, and a classifier of three Linear layers with Dropout. torchvision's state_dict names and
// initialization.
#pragma once

#include <memory>

#include "lib/graph/graph.h"

namespace xtrain {

// depth 11, 13, 16 or 19 (configurations A, B, D, E).
std::shared_ptr<const Graph> vgg(int depth, bool batch_norm, int num_classes);
std::shared_ptr<const Graph> alexnet(int num_classes);

}  // namespace xtrain
