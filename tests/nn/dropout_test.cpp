#include "lib/nn/dropout.h"

#include <gtest/gtest.h>

#include <vector>

#include "lib/base/check.h"
#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

// For one key the mask is fixed, so the layer is linear and its backward the same product.
TEST(Dropout, GradientsMatchFiniteDifferences) {
  Dropout dropout("classifier.2", 0.5f);
  check_layer_gradients(dropout, {Shape{4, 33}}, testing::GradCheckOptions{});
}

// Runs the layer on x and returns y.
std::vector<float> run(const Dropout& layer, std::vector<float> x, uint32_t step_key,
                       bool training) {
  std::vector<float> y(x.size());
  LayerCall call;
  call.inputs = {TensorView{x.data(), Shape{1, static_cast<int64_t>(x.size())}}};
  call.output = TensorView{y.data(), Shape{1, static_cast<int64_t>(x.size())}};
  call.step_key = step_key;
  call.training = training;
  layer.forward(call);
  return y;
}

TEST(Dropout, MasksDependOnTheStepAndTheLayerAndEvaluationPassesThrough) {
  const std::vector<float> ones(256, 1.0f);
  const Dropout a("classifier.2", 0.5f), b("classifier.5", 0.5f);
  const std::vector<float> a1 = run(a, ones, 1, true);
  EXPECT_EQ(a1, run(a, ones, 1, true));
  EXPECT_NE(a1, run(a, ones, 2, true));
  EXPECT_NE(a1, run(b, ones, 1, true));
  for (float v : a1) EXPECT_TRUE(v == 0.0f || v == 2.0f) << v;
  EXPECT_EQ(run(a, ones, 1, false), ones);
}

TEST(Dropout, RejectsProbabilitiesOutsideZeroToOne) {
  EXPECT_THROW(Dropout("d", 1.0f), Error);
  EXPECT_THROW(Dropout("d", -0.1f), Error);
}

}  // namespace
}  // namespace xtrain
