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
    switch (t.pass) {
      case LayerTiming::Pass::kForward:
        total.forward_seconds += t.seconds;
        break;
      case LayerTiming::Pass::kBackward:
        total.backward_seconds += t.seconds;
        break;
      case LayerTiming::Pass::kRebuild:
        total.rebuild_seconds += t.seconds;
        break;
    }
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
  for (const LayerTiming& t : plan.timings()) {
    steps += t.node == 0 && t.pass == LayerTiming::Pass::kForward;
  }
  double all = 0.0, rebuilding = 0.0;
  for (const LayerTotal& t : totals) {
    all += t.seconds();
    rebuilding += t.rebuild_seconds;
  }
  std::vector<std::string> lines = {fmt::format(
      "Profile: {} steps, {:.2f} s in layers, {:.2f} s of it rebuilding outputs for the backward; "
      "top {} layers (forward + backward + rebuilt):",
      steps, all, rebuilding, top)};
  for (int i = 0; i < top && i < static_cast<int>(totals.size()); ++i) {
    const LayerTotal& t = totals[i];
    const Layer& layer = *plan.layers()[t.node];
    const std::string rebuilt =
        t.rebuild_seconds > 0.0 ? fmt::format("  rebuilt {:.3f} s", t.rebuild_seconds) : "";
    lines.push_back(fmt::format("  {:2d}. {} ({})  fwd {:.3f} s  bwd {:.3f} s{}  {:.1f}%", i + 1,
                                layer.name(), layer.type(), t.forward_seconds, t.backward_seconds,
                                rebuilt, all > 0.0 ? 100.0 * t.seconds() / all : 0.0));
  }
  return lines;
}

}  // namespace xtrain
