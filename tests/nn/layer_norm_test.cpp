// LayerNorm: finite-difference gradient checks of the input, weight and bias over NHWC rows and
// [N, C] rows, and its shape checks.
#include "lib/nn/layer_norm.h"

#include <gtest/gtest.h>

#include "lib/base/check.h"
#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

TEST(LayerNorm, GradientsMatchFiniteDifferencesOverPixels) {
  LayerNorm layer("norm", 6, 1e-6f);
  check_layer_gradients(layer, {Shape{2, 3, 4, 6}}, testing::GradCheckOptions{});
}

TEST(LayerNorm, GradientsMatchFiniteDifferencesOverRows) {
  LayerNorm layer("classifier.0", 7, 1e-6f);
  check_layer_gradients(layer, {Shape{3, 7}}, testing::GradCheckOptions{});
}

TEST(LayerNorm, RefusesAnotherChannelCount) {
  const LayerNorm layer("features.0.1", 5, 1e-6f);
  EXPECT_EQ(layer.output_shape({Shape{2, 3, 4, 5}}), (Shape{2, 3, 4, 5}));
  EXPECT_EQ(layer.output_shape({Shape{2, 5}}), (Shape{2, 5}));
  EXPECT_THROW(layer.output_shape({Shape{2, 3, 4, 6}}), Error);
  EXPECT_THROW(layer.output_shape({Shape{5}}), Error);
}

}  // namespace
}  // namespace xtrain
