#include "lib/nn/adaptive_avg_pool2d.h"

#include <gtest/gtest.h>

#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

TEST(AdaptiveAvgPool2d, GradientsMatchFiniteDifferences) {
  AdaptiveAvgPool2d pool("avgpool");
  check_layer_gradients(pool, {Shape{2, 3, 5, 4}}, testing::GradCheckOptions{});
}

TEST(AdaptiveAvgPool2d, FlattensToRows) {
  AdaptiveAvgPool2d pool("avgpool");
  EXPECT_EQ(pool.output_shape({Shape{8, 7, 7, 2048}}), (Shape{8, 2048}));
}

}  // namespace
}  // namespace xtrain
