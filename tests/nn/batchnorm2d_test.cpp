#include "lib/nn/batchnorm2d.h"

#include <gtest/gtest.h>

#include "lib/base/check.h"
#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

TEST(BatchNorm2d, GradientsMatchFiniteDifferences) {
  BatchNorm2d bn("bn", /*num_features=*/3);
  check_layer_gradients(bn, {Shape{2, 5, 5, 3}}, testing::GradCheckOptions{});
}

// A large eps (Inception's is 0.001) weighs in the normalization of inputs with variance ~1/3:
// the forward and the backward must both use the layer's own.
TEST(BatchNorm2d, WithItsOwnEpsGradientsMatchFiniteDifferences) {
  BatchNorm2d bn("bn", /*num_features=*/3, BatchNorm2d::Fused::kNothing, /*eps=*/0.1f);
  check_layer_gradients(bn, {Shape{2, 5, 5, 3}}, testing::GradCheckOptions{});
}

// The fused ReLU. A perturbation must not carry an output across the kink at 0, and moving
// gamma or beta moves a whole channel: a step of 1e-3 on 54 outputs avoids it for seed 1 (as
// for 57 of the seeds 1..59).
TEST(BatchNorm2d, WithReluGradientsMatchFiniteDifferences) {
  BatchNorm2d bn_relu("bn", /*num_features=*/3, BatchNorm2d::Fused::kReLU);
  testing::GradCheckOptions options;
  options.step = 1e-3f;
  check_layer_gradients(bn_relu, {Shape{2, 3, 3, 3}}, options);
}

// The fused ReLU6, min(max(bn(x), 0), 6). Parameters in [-8, 8) put outputs beyond both clamps
// (the normalized inputs span about +-1.7), so a backward that passed the gradient above 6 fails.
// A step of 1e-3 keeps every output on its side of either kink for seed 2 (as for 8 of the seeds
// 1..10).
TEST(BatchNorm2d, WithRelu6GradientsMatchFiniteDifferences) {
  BatchNorm2d bn_relu6("bn", /*num_features=*/3, BatchNorm2d::Fused::kReLU6);
  testing::GradCheckOptions options;
  options.step = 1e-3f;
  options.param_scale = 8.0f;
  options.seed = 2;
  check_layer_gradients(bn_relu6, {Shape{2, 3, 3, 3}}, options);
}

// The fused Hardswish with MobileNetV3's eps and momentum. Parameters in [-5, 5) put outputs on
// all three pieces (below -3, between, above 3), so a backward with a wrong slope on any fails.
TEST(BatchNorm2d, WithHardswishGradientsMatchFiniteDifferences) {
  BatchNorm2d bn_hardswish("bn", /*num_features=*/3, BatchNorm2d::Fused::kHardswish, 1e-3f, 0.01f);
  testing::GradCheckOptions options;
  options.step = 1e-3f;
  options.param_scale = 5.0f;
  check_layer_gradients(bn_hardswish, {Shape{2, 3, 3, 3}}, options);
}

// The fused SiLU with EfficientNet-V2's eps. Parameters in [-5, 5) put outputs on its dip and on
// its nearly linear part.
TEST(BatchNorm2d, WithSiluGradientsMatchFiniteDifferences) {
  BatchNorm2d bn_silu("bn", /*num_features=*/3, BatchNorm2d::Fused::kSiLU, 1e-3f);
  testing::GradCheckOptions options;
  options.step = 1e-3f;
  options.param_scale = 5.0f;
  check_layer_gradients(bn_silu, {Shape{2, 3, 3, 3}}, options);
}

// The fused residual sum and ReLU: relu(bn(x) + residual), both inputs get gradients. As above, a
// step of 1e-3 keeps every output on its side of the kink for seed 1.
TEST(BatchNorm2d, WithResidualAndReluGradientsMatchFiniteDifferences) {
  BatchNorm2d bn_add_relu("bn", /*num_features=*/3, BatchNorm2d::Fused::kAddReLU);
  testing::GradCheckOptions options;
  options.step = 1e-3f;
  check_layer_gradients(bn_add_relu, {Shape{2, 3, 3, 3}, Shape{2, 3, 3, 3}}, options);
}

// Over several inputs, the normalization of their channel concatenation (DenseNet's norm
// layers): each input gets its gradient, each channel its gamma and beta.
TEST(BatchNorm2d, OverSeveralInputsGradientsMatchFiniteDifferences) {
  BatchNorm2d bn("bn", /*num_features=*/6);
  check_layer_gradients(bn, {Shape{2, 4, 4, 1}, Shape{2, 4, 4, 3}, Shape{2, 4, 4, 2}},
                        testing::GradCheckOptions{});
  // With the ReLU, as DenseNet builds it; a step of 1e-3 keeps every output on its side of the
  // kink for seed 1, as above.
  BatchNorm2d bn_relu("bn", /*num_features=*/5, BatchNorm2d::Fused::kReLU);
  testing::GradCheckOptions options;
  options.step = 1e-3f;
  check_layer_gradients(bn_relu, {Shape{2, 3, 3, 2}, Shape{2, 3, 3, 3}}, options);
}

TEST(BatchNorm2d, OverSeveralInputsRejectsOtherGridsAndChannelCounts) {
  BatchNorm2d bn("bn", /*num_features=*/5);
  EXPECT_EQ(bn.output_shape({Shape{2, 3, 3, 2}, Shape{2, 3, 3, 3}}), (Shape{2, 3, 3, 5}));
  EXPECT_THROW(bn.output_shape({Shape{2, 3, 3, 2}, Shape{2, 3, 4, 3}}), Error);
  EXPECT_THROW(bn.output_shape({Shape{2, 3, 3, 2}, Shape{2, 3, 3, 2}}), Error);
}

TEST(BatchNorm2d, RejectsAResidualOfAnotherShape) {
  BatchNorm2d bn_add_relu("bn", /*num_features=*/3, BatchNorm2d::Fused::kAddReLU);
  EXPECT_THROW(bn_add_relu.output_shape({Shape{2, 3, 3, 3}, Shape{2, 3, 4, 3}}), Error);
  EXPECT_THROW(bn_add_relu.output_shape({Shape{2, 3, 3, 3}}), Error);
}

TEST(BatchNorm2d, ParametersAndBuffersAreTorchvisions) {
  BatchNorm2d bn("bn1", 4);
  const std::vector<ParamSpec> specs = bn.param_specs();
  ASSERT_EQ(specs.size(), 5u);
  EXPECT_EQ(specs[0].name, "weight");
  EXPECT_EQ(specs[0].init, Init::kOnes);
  EXPECT_EQ(specs[1].name, "bias");
  EXPECT_EQ(specs[2].name, "running_mean");
  EXPECT_EQ(specs[2].kind, ParamKind::kBuffer);
  EXPECT_EQ(specs[3].name, "running_var");
  EXPECT_EQ(specs[3].init, Init::kOnes);
  EXPECT_EQ(specs[4].name, "num_batches_tracked");
  EXPECT_EQ(specs[4].kind, ParamKind::kCounter);
}

// As a part of a concatenation held in place (Inception's BasicConv2d): training and evaluation,
// with and without the ReLU, and over several inputs (the rows and a channel count off the
// vector width).
TEST(BatchNorm2d, WritesItsOutputAsColumnsOfWiderRows) {
  for (const BatchNorm2d::Fused fused :
       {BatchNorm2d::Fused::kNothing, BatchNorm2d::Fused::kReLU, BatchNorm2d::Fused::kReLU6,
        BatchNorm2d::Fused::kHardswish, BatchNorm2d::Fused::kSiLU}) {
    const BatchNorm2d bn("bn", /*num_features=*/37, fused);
    testing::check_output_in_columns(bn, {Shape{2, 5, 7, 37}}, testing::GradCheckOptions{});
    const BatchNorm2d parts("bn", /*num_features=*/37, fused);
    testing::check_output_in_columns(parts, {Shape{2, 5, 7, 20}, Shape{2, 5, 7, 17}},
                                     testing::GradCheckOptions{});
  }
}

}  // namespace
}  // namespace xtrain
