#include "lib/nn/max_pool2d.h"

#include <gtest/gtest.h>

#include "lib/base/check.h"
#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

TEST(MaxPool2d, GradientsMatchFiniteDifferences) {
  MaxPool2d pool("maxpool", /*kernel=*/3, /*stride=*/2, /*padding=*/1);
  testing::GradCheckOptions options;
  options.inputs = testing::InputValues::kDistinct;  // no window has a tie to flip
  check_layer_gradients(pool, {Shape{2, 7, 6, 3}}, options);
}

TEST(MaxPool2d, CeilModeGradientsMatchFiniteDifferences) {
  MaxPool2d pool("features.2", 3, 2, 0, /*ceil_mode=*/true);
  testing::GradCheckOptions options;
  options.inputs = testing::InputValues::kDistinct;
  check_layer_gradients(pool, {Shape{2, 8, 6, 3}}, options);
}

// SqueezeNet 1.1 at 224: 111 -> 55 -> 27 -> 13 with ceil_mode; 54 would give 27 (floor: 26).
TEST(MaxPool2d, CeilModeShapesAreTorchs) {
  MaxPool2d pool("features.2", 3, 2, 0, /*ceil_mode=*/true);
  EXPECT_EQ(pool.output_shape({Shape{1, 111, 111, 64}}), (Shape{1, 55, 55, 64}));
  EXPECT_EQ(pool.output_shape({Shape{1, 54, 54, 8}}), (Shape{1, 27, 27, 8}));
  EXPECT_EQ(pool.output_shape({Shape{1, 2, 2, 8}}), (Shape{1, 1, 1, 8}));  // a partial window
  EXPECT_THROW(pool.output_shape({Shape{1, 1, 1, 8}}), Error);
}

TEST(MaxPool2d, OutputShapeIsTorchvisions) {
  MaxPool2d pool("maxpool", 3, 2, 1);
  EXPECT_EQ(pool.output_shape({Shape{1, 112, 112, 64}}), (Shape{1, 56, 56, 64}));
}

// As a part of a concatenation held in place (Inception's Mixed_6a and Mixed_7a).
TEST(MaxPool2d, WritesItsOutputAsColumnsOfWiderRows) {
  testing::GradCheckOptions options;
  options.inputs = testing::InputValues::kDistinct;
  testing::check_output_in_columns(MaxPool2d("pool", 3, 2, 0), {Shape{2, 9, 8, 37}}, options);
}

}  // namespace
}  // namespace xtrain
