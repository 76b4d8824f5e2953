// StochasticDepth: the gradient check under one step's fixed mask, masks that depend on the step
// and the layer and drop whole samples, the same masks however a batch is split over cores,
// evaluation's identity, and p outside [0, 1) refused.
#include "lib/nn/stochastic_depth.h"

#include <gtest/gtest.h>

#include <vector>

#include "lib/base/check.h"
#include "tests/nn/grad_check.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

// For one key the mask is fixed, so the layer is linear and its backward the same product. With
// 64 samples and p = 0.5 both kept and dropped samples are checked.
TEST(StochasticDepth, GradientsMatchFiniteDifferences) {
  StochasticDepth layer("features.2.1.stochastic_depth", 0.5);
  check_layer_gradients(layer, {Shape{64, 2, 3, 4}}, testing::GradCheckOptions{});
}

// Runs the layer on x [N, 2, 2, 3], whose first sample is first_sample of the step's batch, and
// returns y. The core's own step key differs from the key shared by every core.
std::vector<float> run(const StochasticDepth& layer, std::vector<float> x, uint32_t batch_key,
                       bool training, int64_t first_sample = 0) {
  const Shape shape{static_cast<int64_t>(x.size()) / 12, 2, 2, 3};
  std::vector<float> y(x.size());
  LayerCall call;
  call.inputs = {TensorView{x.data(), shape}};
  call.output = TensorView{y.data(), shape};
  call.step_key = batch_key + static_cast<uint32_t>(first_sample) + 1;
  call.batch_key = batch_key;
  call.first_sample = first_sample;
  call.training = training;
  layer.forward(call);
  return y;
}

TEST(StochasticDepth, MasksDropWholeSamplesDependOnTheStepAndTheLayerAndEvaluationPassesThrough) {
  const std::vector<float> ones(64 * 12, 1.0f);
  const StochasticDepth a("features.2.1.stochastic_depth", 0.5),
      b("features.3.1.stochastic_depth", 0.5);
  const std::vector<float> a1 = run(a, ones, 1, true);
  EXPECT_EQ(a1, run(a, ones, 1, true));
  EXPECT_NE(a1, run(a, ones, 2, true));
  EXPECT_NE(a1, run(b, ones, 1, true));
  for (size_t n = 0; n < 64; ++n) {
    const float first = a1[n * 12];
    EXPECT_TRUE(first == 0.0f || first == 2.0f) << first;
    for (size_t j = 1; j < 12; ++j) ASSERT_EQ(a1[n * 12 + j], first) << n;
  }
  EXPECT_EQ(run(a, ones, 1, false), ones);
}

// A batch of 64 on one core, or split 24 + 40 over two: each sample draws by its index in the
// whole batch, under the key every core shares.
TEST(StochasticDepth, MasksDoNotDependOnHowTheBatchIsSplitOverCores) {
  const StochasticDepth layer("features.2.1.stochastic_depth", 0.5);
  const std::vector<float> x = testing::random_floats(64 * 12, 3);
  const std::vector<float> whole = run(layer, x, 7, true);
  std::vector<float> split =
      run(layer, std::vector<float>(x.begin(), x.begin() + 24 * 12), 7, true, 0);
  const std::vector<float> second =
      run(layer, std::vector<float>(x.begin() + 24 * 12, x.end()), 7, true, 24);
  split.insert(split.end(), second.begin(), second.end());
  EXPECT_EQ(split, whole);
  EXPECT_NE(run(layer, std::vector<float>(x.begin() + 24 * 12, x.end()), 7, true, 0), second);
}

TEST(StochasticDepth, RejectsProbabilitiesOutsideZeroToOne) {
  EXPECT_THROW(StochasticDepth("s", 1.0), Error);
  EXPECT_THROW(StochasticDepth("s", -0.1), Error);
}

}  // namespace
}  // namespace xtrain
