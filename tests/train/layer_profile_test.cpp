#include "lib/train/layer_profile.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
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
  const size_t layers = plan.layers().size();
  EXPECT_EQ(plan.timings().size(), 2 * 2 * layers);

  const std::vector<LayerTotal> totals = layer_totals(plan);
  ASSERT_EQ(totals.size(), layers);
  for (size_t i = 1; i < totals.size(); ++i)
    EXPECT_GE(totals[i - 1].seconds(), totals[i].seconds());

  const std::vector<std::string> lines = top_layers_lines(plan, /*top=*/3);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].rfind("Profile: 2 steps", 0), 0u) << lines[0];

  const std::string path = ::testing::TempDir() + "layer_profile_test.json";
  write_chrome_trace(plan, path);
  const nlohmann::json trace = nlohmann::json::parse(std::ifstream(path));
  int complete = 0;
  for (const auto& e : trace["traceEvents"]) complete += e["ph"] == "X";
  EXPECT_EQ(complete, static_cast<int>(plan.timings().size()));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace xtrain
