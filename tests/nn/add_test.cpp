#include "lib/nn/add.h"

#include <gtest/gtest.h>

#include "lib/base/check.h"
#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

TEST(Add, GradientsMatchFiniteDifferences) {
  Add add("add");
  check_layer_gradients(add, {Shape{2, 3, 3, 4}, Shape{2, 3, 3, 4}}, testing::GradCheckOptions{});
}

TEST(Add, RejectsDifferentShapes) {
  Add add("add");
  EXPECT_THROW(add.output_shape({Shape{2, 3, 3, 4}, Shape{2, 3, 3, 5}}), Error);
}

}  // namespace
}  // namespace xtrain
