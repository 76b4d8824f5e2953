// torchvision's MNASNet B1 (Tan et al. 2019) at its four depth multipliers: a strided 3x3 stem
// and a depthwise separable convolution, six stacks of inverted residual blocks (a 1x1
// expansion, a depthwise 3x3 or 5x5 convolution, a linear 1x1 projection, each normalized; the
// two first followed by ReLU, and the block's input added where the shape allows), a 1x1
// convolution to 1280 channels, the mean over the grid, Dropout and one Linear layer.
// torchvision's state_dict names (one nn.Sequential, `layers`), BatchNorm momentum and
// initialization.
// Not here: the version 1 stem torchvision patches in when loading an old checkpoint.
#pragma once

#include <memory>

#include "lib/graph/graph.h"

namespace xtrain {

// alpha: torchvision's depth multiplier (0.5, 0.75, 1.0, 1.3 for mnasnet0_5 ... mnasnet1_3).
std::shared_ptr<const Graph> mnasnet(double alpha, int num_classes);

}  // namespace xtrain
