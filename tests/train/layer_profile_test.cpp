#include "lib/train/layer_profile.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "lib/graph/replica.h"
#include "lib/nn/cross_entropy_loss.h"
#include "lib/train/chrome_trace.h"
#include "tests/graph/tiny_resnet.h"

namespace xtrain {
namespace {

const CrossEntropyLoss kLoss("loss", /*label_smoothing=*/0.0f);

TEST(LayerProfile, TimesEveryLayerCallOnceAndWritesATrace) {
  Replica replica(testing::tiny_resnet(3));
  replica.store().initialize(1);
  Plan& plan = replica.plan_for(Shape{2, 8, 8, 3}, PlanMode::kTrain, &kLoss);
  plan.forward(Exec{});  // not profiled yet
  plan.enable_profiling();
  for (int step = 0; step < 2; ++step) {
    plan.forward(Exec{});
    plan.backward(Exec{});
  }
  // Every call's forward and backward once a step, and the rebuilds of the outputs the plan did
  // not keep (BatchNorm+ReLU outputs, the stem's) as their producers' rebuild passes.
  const size_t layers = plan.layers().size();
  std::map<LayerTiming::Pass, size_t> passes;
  for (const LayerTiming& t : plan.timings()) ++passes[t.pass];
  EXPECT_EQ(passes[LayerTiming::Pass::kForward], 2 * layers);
  EXPECT_EQ(passes[LayerTiming::Pass::kBackward], 2 * layers);
  const size_t rebuilds = passes[LayerTiming::Pass::kRebuild];
  EXPECT_GT(rebuilds, 0u);
  EXPECT_EQ(rebuilds % 2, 0u) << "the same rebuilds every step";

  const std::vector<LayerTotal> totals = layer_totals(plan);
  ASSERT_EQ(totals.size(), layers);
  double rebuilding = 0.0;
  for (size_t i = 0; i < totals.size(); ++i) {
    if (i > 0) {
      EXPECT_GE(totals[i - 1].seconds(), totals[i].seconds());
    }
    rebuilding += totals[i].rebuild_seconds;
  }
  EXPECT_GT(rebuilding, 0.0);

  const std::vector<std::string> lines = top_layers_lines(plan, /*top=*/3);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].rfind("Profile: 2 steps", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("s of it rebuilding outputs for the backward"), std::string::npos)
      << lines[0];

  const std::string path = ::testing::TempDir() + "layer_profile_test.json";
  write_chrome_trace(plan, path);
  const nlohmann::json trace = nlohmann::json::parse(std::ifstream(path));
  size_t complete = 0, rebuild_events = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++complete;
    const std::string name = e["name"];
    if (name.size() > 10 && name.substr(name.size() - 10) == " (rebuild)") {
      ++rebuild_events;
      EXPECT_EQ(e["tid"], 1) << name << " is not on the backward row";
    }
  }
  EXPECT_EQ(complete, plan.timings().size());
  EXPECT_EQ(rebuild_events, rebuilds);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace xtrain
