// A block of Inception in miniature for graph-level tests of concatenations: after a stem, four
// branches concatenated, a BatchNorm+ReLU, a convolution and ReLU, a max-pool, and a nested
// concatenation of two BatchNorms; then a convolution over the whole, pooling and fc. Every
// branch is one a plan holds in place (plan_phases.h). Values:
//   1 stem conv (read by every branch)
//   2 a.conv   3 a.bn (BatchNorm+ReLU)      4 b.conv   5 b.relu
//   6 pool (max)   7 n1.conv   8 n1.bn   9 n2.conv   10 n2.bn   11 n.cat (n1.bn, n2.bn)
//   12 cat (a.bn, b.relu, pool, n.cat)   13 head.conv   14 head.bn   15 avgpool   16 fc (logits)
#pragma once

#include <memory>

#include "lib/graph/graph.h"

namespace xtrain::testing {

std::shared_ptr<const Graph> tiny_inception(int num_classes);

}  // namespace xtrain::testing
