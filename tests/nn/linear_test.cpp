#include "lib/nn/linear.h"

#include <gtest/gtest.h>

#include <cmath>

#include "lib/base/check.h"
#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

TEST(Linear, GradientsMatchFiniteDifferences) {
  Linear fc("fc", /*in=*/6, /*out=*/4);
  check_layer_gradients(fc, {Shape{3, 6}}, testing::GradCheckOptions{});
}

TEST(Linear, ShapesAndInitAreNnLinears) {
  Linear fc("fc", 512, 1000);
  EXPECT_EQ(fc.output_shape({Shape{2, 512}}), (Shape{2, 1000}));
  EXPECT_THROW(fc.output_shape({Shape{2, 511}}), Error);
  const std::vector<ParamSpec> specs = fc.param_specs();
  EXPECT_EQ(specs[0].shape, (Shape{1000, 512}));
  EXPECT_EQ(specs[0].init, Init::kUniform);
  EXPECT_FLOAT_EQ(specs[1].scale, 1.0f / std::sqrt(512.0f));
}

}  // namespace
}  // namespace xtrain
