#include "lib/nn/weight_init.h"

#include <gtest/gtest.h>

#include <cmath>

#include "lib/nn/conv2d.h"
#include "lib/nn/linear.h"

namespace xtrain {
namespace {

using Weight = WeightInit::Weight;

// Each rule against the formula torch.nn.init uses for a [64, 3, 7, 7] conv weight
// (fan_in 3 * 49 = 147, fan_out 64 * 49 = 3136).
TEST(WeightInit, EachRuleIsTorchsFormulaOverItsFan) {
  const Shape shape{7, 7, 3, 64};
  const auto spec = [&](WeightInit init) { return weight_spec(init, shape, 147, 3136); };
  EXPECT_EQ(spec({Weight::kTorchDefault}).init, Init::kUniform);
  EXPECT_FLOAT_EQ(spec({Weight::kTorchDefault}).scale, 1.0f / std::sqrt(147.0f));
  EXPECT_EQ(spec({Weight::kKaimingNormalFanOut}).init, Init::kNormal);
  EXPECT_FLOAT_EQ(spec({Weight::kKaimingNormalFanOut}).scale, std::sqrt(2.0f / 3136));
  EXPECT_FLOAT_EQ(spec({Weight::kKaimingNormalFanIn}).scale, std::sqrt(2.0f / 147));
  EXPECT_EQ(spec({Weight::kKaimingUniformFanIn}).init, Init::kUniform);
  EXPECT_FLOAT_EQ(spec({Weight::kKaimingUniformFanIn}).scale, std::sqrt(6.0f / 147));
  EXPECT_EQ(spec({Weight::kUniformFanOut}).init, Init::kUniform);
  EXPECT_FLOAT_EQ(spec({Weight::kUniformFanOut}).scale, std::sqrt(3.0f / 3136));
  EXPECT_EQ(spec({Weight::kNormal, 0.01f}).init, Init::kNormal);
  EXPECT_FLOAT_EQ(spec({Weight::kNormal, 0.01f}).scale, 0.01f);
  EXPECT_EQ(spec({Weight::kTruncatedNormal, 0.1f}).init, Init::kTruncatedNormal);
  EXPECT_EQ(spec({Weight::kUniformInvSqrtFanOut}).init, Init::kUniform);
  EXPECT_FLOAT_EQ(spec({Weight::kUniformInvSqrtFanOut}).scale, 1.0f / std::sqrt(3136.0f));
  EXPECT_EQ(spec({}).shape, shape);
}

TEST(WeightInit, BiasIsNnsDefaultUnlessTheFamilyZeroesIt) {
  const ParamSpec nn_default = bias_spec({}, 10, 400);
  EXPECT_EQ(nn_default.init, Init::kUniform);
  EXPECT_FLOAT_EQ(nn_default.scale, 0.05f);
  EXPECT_EQ(nn_default.shape, Shape{10});
  EXPECT_EQ(bias_spec({Weight::kNormal, 0.01f, /*zero_bias=*/true}, 10, 400).init, Init::kZeros);
}

// Layers hand their own fans to the rule: a grouped conv's fan_in counts one group's inputs.
TEST(WeightInit, LayersPassTorchsFans) {
  const Conv2d grouped("conv2", 128, 256, 3, 1, 1, /*bias=*/true, /*groups=*/32,
                       WeightInit{Weight::kKaimingNormalFanIn});
  EXPECT_FLOAT_EQ(grouped.param_specs()[0].scale, std::sqrt(2.0f / (4 * 9)));
  EXPECT_FLOAT_EQ(grouped.param_specs()[1].scale, 1.0f / std::sqrt(4.0f * 9));
  const Linear fc("classifier.0", 25088, 4096, WeightInit{Weight::kNormal, 0.01f, true});
  EXPECT_EQ(fc.param_specs()[0].shape, (Shape{4096, 25088}));
  EXPECT_FLOAT_EQ(fc.param_specs()[0].scale, 0.01f);
  EXPECT_EQ(fc.param_specs()[1].init, Init::kZeros);
}

}  // namespace
}  // namespace xtrain
