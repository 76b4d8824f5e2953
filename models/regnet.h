// torchvision's RegNetX models (Radosavovic et al. 2020): a strided 3x3 stem, four stages of
// residual bottleneck blocks (1x1, grouped 3x3, 1x1, each normalized, a projection shortcut where
// the shape changes, ReLU after the sum) whose widths, depths and group widths come from the
// design space's four numbers as torchvision's BlockParams.from_init_params computes them, the
// average over the grid and one Linear layer. torchvision's state_dict names and initialization.
// Not here: RegNetY (a squeeze-and-excitation gate in each block), bottleneck multipliers other
// than 1 (no torchvision model uses one).
#pragma once

#include <memory>
#include <vector>

#include "lib/graph/graph.h"

namespace xtrain {

// from_init_params' arguments: blocks in all, initial width w_0, slope w_a, log-space step w_m,
// and the group width of the 3x3 convolutions.
struct RegNetDesign {
  int depth;
  int w_0;
  double w_a;
  double w_m;
  int group_width;
};

// One stage as BlockParams holds it: its blocks, output width and group width (stride 2).
struct RegNetStage {
  int depth;
  int width;
  int group_width;
};

std::vector<RegNetStage> regnet_stages(const RegNetDesign& design);

std::shared_ptr<const Graph> regnet_x_400mf(int num_classes);
std::shared_ptr<const Graph> regnet_x_800mf(int num_classes);
std::shared_ptr<const Graph> regnet_x_1_6gf(int num_classes);
std::shared_ptr<const Graph> regnet_x_3_2gf(int num_classes);
std::shared_ptr<const Graph> regnet_x_8gf(int num_classes);
std::shared_ptr<const Graph> regnet_x_16gf(int num_classes);
std::shared_ptr<const Graph> regnet_x_32gf(int num_classes);

}  // namespace xtrain
