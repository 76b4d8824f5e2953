#include "lib/nn/global_avg_pool_flatten.h"

#include <gtest/gtest.h>

#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

TEST(GlobalAvgPoolFlatten, GradientsMatchFiniteDifferences) {
  GlobalAvgPoolFlatten pool("avgpool");
  check_layer_gradients(pool, {Shape{2, 3, 5, 4}}, testing::GradCheckOptions{});
}

TEST(GlobalAvgPoolFlatten, FlattensToRows) {
  GlobalAvgPoolFlatten pool("avgpool");
  EXPECT_EQ(pool.output_shape({Shape{8, 7, 7, 2048}}), (Shape{8, 2048}));
}

}  // namespace
}  // namespace xtrain
