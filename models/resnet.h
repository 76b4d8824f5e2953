// torchvision's ImageNet ResNets (v1.5: a Bottleneck's stride sits on its 3x3 conv2), ResNeXts
// (grouped 3x3 convolutions) and Wide ResNets (twice the 3x3 width), with torchvision's
// state_dict names and initialization.
#pragma once

#include <memory>

#include "lib/graph/graph.h"

namespace xtrain {

std::shared_ptr<const Graph> resnet18(int num_classes);
std::shared_ptr<const Graph> resnet34(int num_classes);
std::shared_ptr<const Graph> resnet50(int num_classes);
std::shared_ptr<const Graph> resnet101(int num_classes);
std::shared_ptr<const Graph> resnet152(int num_classes);
std::shared_ptr<const Graph> resnext50_32x4d(int num_classes);
std::shared_ptr<const Graph> resnext101_32x8d(int num_classes);
std::shared_ptr<const Graph> resnext101_64x4d(int num_classes);
std::shared_ptr<const Graph> wide_resnet50_2(int num_classes);
std::shared_ptr<const Graph> wide_resnet101_2(int num_classes);

}  // namespace xtrain
