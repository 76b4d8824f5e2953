// torchvision's MobileNetV3 (Howard et al. 2019), Large and Small, at width 1.0: a strided 3x3
// stem with Hardswish, inverted residual blocks (a 1x1 expansion where the width changes, a
// depthwise 3x3 or 5x5 convolution, a squeeze-and-excitation block in some, a linear 1x1
// projection; ReLU or Hardswish after the two first, the block's input added where the shape
// allows), a 1x1 convolution to six times the last width with Hardswish, the average over the
// grid, and a classifier Linear - Hardswish - Dropout(0.2) - Linear. BatchNorm with eps 0.001 and
// momentum 0.01 throughout. torchvision's state_dict names and initialization.
// Not here: other width multipliers, reduced_tail and the dilated variant (torchvision's
// segmentation backbones).
#pragma once

#include <memory>

#include "lib/graph/graph.h"

namespace xtrain {

std::shared_ptr<const Graph> mobilenet_v3_large(int num_classes);
std::shared_ptr<const Graph> mobilenet_v3_small(int num_classes);

}  // namespace xtrain
