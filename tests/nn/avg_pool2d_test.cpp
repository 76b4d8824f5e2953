#include "lib/nn/avg_pool2d.h"

#include <gtest/gtest.h>

#include "lib/base/check.h"
#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

using testing::check_layer_gradients;
using testing::GradCheckOptions;

TEST(AvgPool2d, GradientsMatchFiniteDifferences) {
  AvgPool2d transition("features.transition1.pool", 2, 2, 0);
  check_layer_gradients(transition, {Shape{2, 5, 6, 3}}, GradCheckOptions{});
  AvgPool2d padded("Mixed_5b.avg_pool", 3, 1, 1);
  check_layer_gradients(padded, {Shape{2, 4, 5, 3}}, GradCheckOptions{});
}

TEST(AvgPool2d, ShapesAreTorchs) {
  EXPECT_EQ(AvgPool2d("pool", 2, 2, 0).output_shape({Shape{2, 56, 56, 128}}),
            (Shape{2, 28, 28, 128}));
  EXPECT_EQ(AvgPool2d("pool", 2, 2, 0).output_shape({Shape{2, 7, 7, 8}}), (Shape{2, 3, 3, 8}));
  EXPECT_EQ(AvgPool2d("pool", 3, 1, 1).output_shape({Shape{2, 35, 35, 192}}),
            (Shape{2, 35, 35, 192}));
  EXPECT_THROW(AvgPool2d("pool", 2, 2, 0).output_shape({Shape{2, 1, 1, 8}}), Error);
  EXPECT_THROW(AvgPool2d("pool", 3, 1, 2), Error);  // padding beyond half the window
}

// Bins that overlap (5 -> 3) and that repeat input pixels (2 -> 3).
TEST(AdaptiveAvgPool2d, GradientsMatchFiniteDifferences) {
  AdaptiveAvgPool2d shrink("avgpool", 3, 3);
  check_layer_gradients(shrink, {Shape{2, 5, 4, 3}}, GradCheckOptions{});
  AdaptiveAvgPool2d grow("avgpool", 3, 2);
  check_layer_gradients(grow, {Shape{1, 2, 1, 3}}, GradCheckOptions{});
}

TEST(AdaptiveAvgPool2d, AnyInputGivesTheGrid) {
  AdaptiveAvgPool2d pool("avgpool", 7, 7);
  EXPECT_EQ(pool.output_shape({Shape{2, 7, 7, 512}}), (Shape{2, 7, 7, 512}));
  EXPECT_EQ(pool.output_shape({Shape{2, 1, 1, 512}}), (Shape{2, 7, 7, 512}));
  EXPECT_EQ(pool.output_shape({Shape{2, 10, 13, 512}}), (Shape{2, 7, 7, 512}));
  EXPECT_THROW(AdaptiveAvgPool2d("avgpool", 0, 7), Error);
}

}  // namespace
}  // namespace xtrain
