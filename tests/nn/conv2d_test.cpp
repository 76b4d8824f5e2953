#include "lib/nn/conv2d.h"

#include <gtest/gtest.h>

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

TEST(Conv2d, OutputShapeAndErrors) {
  Conv2d conv("layer1.0.conv1", 3, 8, 7, 2, 3, false);
  EXPECT_EQ(conv.output_shape({Shape{2, 224, 224, 3}}), (Shape{2, 112, 112, 8}));
  EXPECT_EQ(conv.macs({Shape{1, 224, 224, 3}}), int64_t{112} * 112 * 7 * 7 * 3 * 8);
  EXPECT_THROW(conv.output_shape({Shape{2, 224, 224, 4}}), Error);
  EXPECT_THROW(conv.output_shape({Shape{2, 224, 3}}), Error);
}

TEST(Conv2d, WeightIsKaimingFanOutInKernelLayout) {
  Conv2d conv("conv1", 3, 64, 7, 2, 3, false);
  const std::vector<ParamSpec> specs = conv.param_specs();
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].shape, (Shape{7, 7, 3, 64}));
  EXPECT_EQ(specs[0].init, Init::kKaimingNormalFanOut);
  EXPECT_EQ(specs[0].fan, 64 * 7 * 7);
}

}  // namespace
}  // namespace xtrain
