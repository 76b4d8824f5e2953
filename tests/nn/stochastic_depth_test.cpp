// StochasticDepth: the gradient check under one step's fixed mask, masks that depend on the step
// and the layer and drop whole samples, evaluation's identity, and p outside [0, 1) refused.
#include "lib/nn/stochastic_depth.h"

#include <gtest/gtest.h>

#include <vector>

#include "lib/base/check.h"
#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

// For one key the mask is fixed, so the layer is linear and its backward the same product. With
// 64 samples and p = 0.5 both kept and dropped samples are checked.
TEST(StochasticDepth, GradientsMatchFiniteDifferences) {
  StochasticDepth layer("features.2.1.stochastic_depth", 0.5);
  check_layer_gradients(layer, {Shape{64, 2, 3, 4}}, testing::GradCheckOptions{});
}

// Runs the layer on x [N, 2, 2, 3] and returns y.
std::vector<float> run(const StochasticDepth& layer, std::vector<float> x, uint32_t step_key,
                       bool training) {
  const Shape shape{static_cast<int64_t>(x.size()) / 12, 2, 2, 3};
  std::vector<float> y(x.size());
  LayerCall call;
  call.inputs = {TensorView{x.data(), shape}};
  call.output = TensorView{y.data(), shape};
  call.step_key = step_key;
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

TEST(StochasticDepth, RejectsProbabilitiesOutsideZeroToOne) {
  EXPECT_THROW(StochasticDepth("s", 1.0), Error);
  EXPECT_THROW(StochasticDepth("s", -0.1), Error);
}

}  // namespace
}  // namespace xtrain
