// Layer profile: a profiling plan's timings summed per layer, and the top of that list as log
// lines ("where the time goes"). Not here: taking the timings (graph/plan.h), the trace file
// (chrome_trace.h).
#pragma once

#include <string>
#include <vector>

#include "lib/graph/plan.h"

namespace xtrain {

struct LayerTotal {
  int node;
  double forward_seconds = 0.0, backward_seconds = 0.0;
  double rebuild_seconds = 0.0;  // its forward again, for outputs the plan did not keep
  double seconds() const { return forward_seconds + backward_seconds + rebuild_seconds; }
};

// One total per layer that ran, the slowest first (ties: graph order).
std::vector<LayerTotal> layer_totals(const Plan& plan);

// A header line and the `top` slowest layers, e.g.
//   Profile: 3 steps, 41.20 s in layers, 1.30 s of it rebuilding outputs for the backward; top
//   10 layers (forward + backward + rebuilt):
//     1. layer1.0.conv2 (Conv2d)  fwd 1.234 s  bwd 2.345 s  8.7%
//     2. layer1.0.bn3 (BatchNorm2d+Add+ReLU)  fwd 0.901 s  bwd 2.105 s  rebuilt 0.511 s  8.5%
std::vector<std::string> top_layers_lines(const Plan& plan, int top);

}  // namespace xtrain
