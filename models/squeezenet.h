// torchvision's SqueezeNet 1.0 (Iandola et al. 2016) and 1.1 (fewer multiply-adds, same
// accuracy): Fire modules (a 1x1 squeeze, then 1x1 and 3x3 expands side by side), ceil-mode
// max-pooling, and a convolutional classifier averaged over the grid. torchvision's state_dict
// names and initialization.
#pragma once

#include <memory>

#include "lib/graph/graph.h"

namespace xtrain {

std::shared_ptr<const Graph> squeezenet1_0(int num_classes);
std::shared_ptr<const Graph> squeezenet1_1(int num_classes);

}  // namespace xtrain
