#include "lib/train/layer_profile.h"

#include <fmt/format.h>

#include <algorithm>

namespace xtrain {

std::vector<LayerTotal> layer_totals(const Plan& plan) {
  std::vector<LayerTotal> totals(plan.layers().size());
  std::vector<bool> ran(totals.size(), false);
  for (const LayerTiming& t : plan.timings()) {
    LayerTotal& total = totals[t.node];
    total.node = t.node;
    (t.backward ? total.backward_seconds : total.forward_seconds) += t.seconds;
    ran[t.node] = true;
  }
  std::vector<LayerTotal> out;
  for (size_t i = 0; i < totals.size(); ++i) {
    if (ran[i]) out.push_back(totals[i]);
  }
  std::stable_sort(out.begin(), out.end(), [](const LayerTotal& a, const LayerTotal& b) {
    return a.seconds() > b.seconds();
  });
  return out;
}

std::vector<std::string> top_layers_lines(const Plan& plan, int top) {
  const std::vector<LayerTotal> totals = layer_totals(plan);
  int steps = 0;  // forward calls of the first layer
  for (const LayerTiming& t : plan.timings()) steps += t.node == 0 && !t.backward;
  double all = 0.0;
  for (const LayerTotal& t : totals) all += t.seconds();
  std::vector<std::string> lines = {fmt::format(
      "Profile: {} steps, {:.2f} s in layers; top {} layers (forward + backward):", steps, all,
      top)};
  for (int i = 0; i < top && i < static_cast<int>(totals.size()); ++i) {
    const LayerTotal& t = totals[i];
    const Layer& layer = *plan.layers()[t.node];
    lines.push_back(fmt::format("  {:2d}. {} ({})  fwd {:.3f} s  bwd {:.3f} s  {:.1f}%", i + 1,
                                layer.name(), layer.type(), t.forward_seconds, t.backward_seconds,
                                all > 0.0 ? 100.0 * t.seconds() / all : 0.0));
  }
  return lines;
}

}  // namespace xtrain
