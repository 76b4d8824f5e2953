#include "lib/nn/conv2d.h"

#include <gtest/gtest.h>

#include <cmath>

#include "lib/base/check.h"
#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

using testing::check_layer_gradients;
using testing::GradCheckOptions;

TEST(Conv2d, GradientsMatchFiniteDifferences3x3Padded) {
  Conv2d conv("conv", /*in=*/3, /*out=*/4, /*kernel=*/3, /*stride=*/1, /*padding=*/1,
              /*bias=*/true);
  check_layer_gradients(conv, {Shape{2, 5, 4, 3}}, GradCheckOptions{});
}

TEST(Conv2d, GradientsMatchFiniteDifferencesStrided) {
  Conv2d conv("conv", 2, 3, 3, /*stride=*/2, /*padding=*/1, /*bias=*/false);
  check_layer_gradients(conv, {Shape{2, 7, 6, 2}}, GradCheckOptions{});
}

TEST(Conv2d, GradientsMatchFiniteDifferencesPointwise) {
  Conv2d conv("conv", 5, 3, 1, 1, 0, false);
  check_layer_gradients(conv, {Shape{2, 3, 3, 5}}, GradCheckOptions{});
}

TEST(Conv2d, GradientsMatchFiniteDifferencesPointwiseStrided) {
  Conv2d conv("downsample", 3, 4, 1, 2, 0, false);
  check_layer_gradients(conv, {Shape{1, 5, 5, 3}}, GradCheckOptions{});
}

// Inception's factorized 7x7: a 1x7 padded (0, 3) and a 7x1 padded (3, 0), and a 3x1 strided.
TEST(Conv2d, GradientsMatchFiniteDifferencesRectangular) {
  Conv2d wide("conv", 3, 4, ConvWindow{1, 7, 1, 0, 3}, /*bias=*/false);
  check_layer_gradients(wide, {Shape{2, 4, 8, 3}}, GradCheckOptions{});
  Conv2d tall("conv", 3, 4, ConvWindow{7, 1, 1, 3, 0}, /*bias=*/true);
  check_layer_gradients(tall, {Shape{2, 8, 4, 3}}, GradCheckOptions{});
  Conv2d strided("conv", 2, 3, ConvWindow{3, 1, 2, 1, 0}, /*bias=*/false);
  check_layer_gradients(strided, {Shape{1, 7, 5, 2}}, GradCheckOptions{});
}

// torch: weight [O, I, KH, KW] = [192, 128, 7, 1] and fans over KH * KW = 7 taps.
TEST(Conv2d, RectangularWeightAndOutputAreTorchs) {
  Conv2d conv("Mixed_6b.branch7x7_3.conv", 128, 192, ConvWindow{7, 1, 1, 3, 0}, false, 1,
              WeightInit::kaiming_normal_fan_out());
  EXPECT_EQ(conv.param_specs()[0].shape, (Shape{7, 1, 128, 192}));
  EXPECT_FLOAT_EQ(conv.param_specs()[0].scale, std::sqrt(2.0f / (192 * 7)));
  EXPECT_EQ(conv.output_shape({Shape{2, 17, 17, 128}}), (Shape{2, 17, 17, 192}));
  EXPECT_EQ(conv.macs({Shape{1, 17, 17, 128}}), int64_t{17} * 17 * 7 * 128 * 192);
}

// ResNeXt's grouped 3x3 (two channels per group here), strided, with a bias.
TEST(Conv2d, GradientsMatchFiniteDifferencesGrouped) {
  Conv2d conv("conv", /*in=*/6, /*out=*/9, 3, /*stride=*/2, /*padding=*/1, /*bias=*/true,
              /*groups=*/3);
  check_layer_gradients(conv, {Shape{2, 5, 6, 6}}, GradCheckOptions{});
}

// One channel per group (depthwise), 1x1 and 3x3.
TEST(Conv2d, GradientsMatchFiniteDifferencesDepthwise) {
  Conv2d pointwise("conv", 4, 4, 1, 1, 0, false, /*groups=*/4);
  check_layer_gradients(pointwise, {Shape{1, 3, 4, 4}}, GradCheckOptions{});
  Conv2d spatial("conv", 4, 8, 3, 1, 1, false, /*groups=*/4);
  check_layer_gradients(spatial, {Shape{1, 4, 3, 4}}, GradCheckOptions{});
}

TEST(Conv2d, GroupedWeightIsTorchsShapeWithTorchsFans) {
  // torch: weight [O, I / groups, KH, KW] = [256, 4, 3, 3], fan_out = O * KH * KW
  Conv2d conv("layer1.0.conv2", 128, 256, 3, 1, 1, /*bias=*/true, /*groups=*/32);
  const std::vector<ParamSpec> specs = conv.param_specs();
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].shape, (Shape{3, 3, 4, 256}));
  EXPECT_EQ(specs[0].init, Init::kUniform);  // nn.Conv2d's default: bound 1 / sqrt(fan_in)
  EXPECT_FLOAT_EQ(specs[0].scale, 1.0f / std::sqrt(4.0f * 3 * 3));
  EXPECT_FLOAT_EQ(specs[1].scale, 1.0f / std::sqrt(4.0f * 3 * 3));  // fan_in = I / groups * KH * KW
  EXPECT_EQ(conv.macs({Shape{1, 8, 8, 128}}), int64_t{8} * 8 * 3 * 3 * 4 * 256);
  EXPECT_THROW(Conv2d("bad", 6, 8, 3, 1, 1, false, /*groups=*/4), Error);  // 6 % 4 != 0
}

TEST(Conv2d, OutputShapeAndErrors) {
  Conv2d conv("layer1.0.conv1", 3, 8, 7, 2, 3, false);
  EXPECT_EQ(conv.output_shape({Shape{2, 224, 224, 3}}), (Shape{2, 112, 112, 8}));
  EXPECT_EQ(conv.macs({Shape{1, 224, 224, 3}}), int64_t{112} * 112 * 7 * 7 * 3 * 8);
  EXPECT_THROW(conv.output_shape({Shape{2, 224, 224, 4}}), Error);
  EXPECT_THROW(conv.output_shape({Shape{2, 224, 3}}), Error);
}

// A map smaller than the window is refused, as torch refuses it, even where the stride would
// round the span up to one output (a 1x1 map under ConvNeXt's 2x2 downsampling of stride 2).
TEST(Conv2d, RefusesAMapSmallerThanItsWindow) {
  const Conv2d downsample("features.6.1", 4, 8, 2, 2, 0, /*bias=*/true);
  EXPECT_EQ(downsample.output_shape({Shape{1, 2, 2, 4}}), (Shape{1, 1, 1, 8}));
  EXPECT_THROW(downsample.output_shape({Shape{1, 1, 1, 4}}), Error);
  EXPECT_THROW(downsample.output_shape({Shape{1, 2, 1, 4}}), Error);
  const Conv2d padded("conv", 4, 8, 3, 2, 1, false);
  EXPECT_EQ(padded.output_shape({Shape{1, 1, 1, 4}}), (Shape{1, 1, 1, 8}));
}

TEST(Conv2d, WeightIsDrawnByItsFamilysRuleInKernelLayout) {
  Conv2d conv("conv1", 3, 64, 7, 2, 3, false, 1, WeightInit::kaiming_normal_fan_out());
  const std::vector<ParamSpec> specs = conv.param_specs();
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].shape, (Shape{7, 7, 3, 64}));
  EXPECT_EQ(specs[0].init, Init::kNormal);
  EXPECT_FLOAT_EQ(specs[0].scale, std::sqrt(2.0f / (64 * 7 * 7)));
}

}  // namespace
}  // namespace xtrain
