// torchvision's ImageNet ResNets (v1.5: a Bottleneck's stride sits on its 3x3 conv2), with
// torchvision's state_dict names and initialization.
#pragma once

#include <memory>

#include "lib/graph/graph.h"

namespace xtrain {

std::shared_ptr<const Graph> resnet18(int num_classes);
std::shared_ptr<const Graph> resnet34(int num_classes);
std::shared_ptr<const Graph> resnet50(int num_classes);
std::shared_ptr<const Graph> resnet101(int num_classes);
std::shared_ptr<const Graph> resnet152(int num_classes);

}  // namespace xtrain
