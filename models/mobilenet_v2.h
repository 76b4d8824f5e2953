// torchvision's MobileNetV2 (Sandler et al. 2018) at width 1.0: a strided 3x3 stem, seventeen
// inverted residual blocks (a 1x1 expansion, a depthwise 3x3 convolution, a linear 1x1
// projection, each normalized; the two first followed by ReLU6, and the block's input added
// where the shape allows), a 1x1 convolution to 1280 channels, the average over the grid, Dropout
// and one Linear layer. torchvision's state_dict names and initialization.
// Not here: other width multipliers (torchvision's width_mult, round_nearest).
#pragma once

#include <memory>

#include "lib/graph/graph.h"

namespace xtrain {

std::shared_ptr<const Graph> mobilenet_v2(int num_classes);

}  // namespace xtrain
