#include "lib/nn/relu.h"

#include <gtest/gtest.h>

#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

TEST(ReLU, GradientsMatchFiniteDifferences) {
  ReLU relu("relu");
  testing::GradCheckOptions options;
  options.inputs = testing::InputValues::kAwayFromZero;  // no input crosses the kink at 0
  check_layer_gradients(relu, {Shape{2, 3, 4, 5}}, options);
}

// As a part of a concatenation held in place (SqueezeNet's Fire).
TEST(ReLU, WritesItsOutputAsColumnsOfWiderRows) {
  testing::check_output_in_columns(ReLU("relu"), {Shape{2, 5, 7, 37}}, testing::GradCheckOptions{});
}

}  // namespace
}  // namespace xtrain
