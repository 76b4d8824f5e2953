// ChannelScale: a finite-difference gradient check of both inputs, and its shape checks.
#include "lib/nn/channel_scale.h"

#include <gtest/gtest.h>

#include "lib/base/check.h"
#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

TEST(ChannelScale, GradientsMatchFiniteDifferences) {
  ChannelScale layer("scale");
  check_layer_gradients(layer, {Shape{2, 3, 4, 5}, Shape{2, 1, 1, 5}}, testing::GradCheckOptions{});
}

TEST(ChannelScale, RefusesAScaleOfAnotherShape) {
  const ChannelScale layer("block.scale");
  EXPECT_EQ(layer.output_shape({Shape{2, 3, 4, 5}, Shape{2, 1, 1, 5}}), (Shape{2, 3, 4, 5}));
  EXPECT_THROW(layer.output_shape({Shape{2, 3, 4, 5}, Shape{2, 1, 1, 4}}), Error);
  EXPECT_THROW(layer.output_shape({Shape{2, 3, 4, 5}, Shape{1, 1, 1, 5}}), Error);
  EXPECT_THROW(layer.output_shape({Shape{2, 3, 4, 5}, Shape{2, 5}}), Error);
  EXPECT_THROW(layer.output_shape({Shape{2, 3, 4, 5}}), Error);
}

}  // namespace
}  // namespace xtrain
