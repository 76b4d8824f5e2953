// A ResNet in miniature for graph-level tests: a 3x3 stem, a basic block with a strided
// downsample, a bottleneck (with the fused BatchNorm layers of the model zoo), an option-A
// shortcut block, pooling and fc. Every layer type of the model zoo appears; it runs in
// microseconds at 8x8.
#pragma once

#include <memory>

#include "lib/graph/graph.h"

namespace xtrain::testing {

std::shared_ptr<const Graph> tiny_resnet(int num_classes);

}  // namespace xtrain::testing
