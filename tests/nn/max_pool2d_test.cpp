#include "lib/nn/max_pool2d.h"

#include <gtest/gtest.h>

#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

TEST(MaxPool2d, GradientsMatchFiniteDifferences) {
  MaxPool2d pool("maxpool", /*kernel=*/3, /*stride=*/2, /*padding=*/1);
  testing::GradCheckOptions options;
  options.inputs = testing::InputValues::kDistinct;  // no window has a tie to flip
  check_layer_gradients(pool, {Shape{2, 7, 6, 3}}, options);
}

TEST(MaxPool2d, OutputShapeIsTorchvisions) {
  MaxPool2d pool("maxpool", 3, 2, 1);
  EXPECT_EQ(pool.output_shape({Shape{1, 112, 112, 64}}), (Shape{1, 56, 56, 64}));
}

}  // namespace
}  // namespace xtrain
