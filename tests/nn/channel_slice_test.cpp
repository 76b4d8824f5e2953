#include "lib/nn/channel_slice.h"

#include <gtest/gtest.h>

#include "lib/base/check.h"
#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

// A slice in the middle: its gradient is zero outside its columns.
TEST(ChannelSlice, GradientsMatchFiniteDifferences) {
  ChannelSlice slice("stage2.1.chunk.1", /*start=*/2, /*width=*/3);
  check_layer_gradients(slice, {Shape{2, 3, 2, 7}}, testing::GradCheckOptions{});
}

TEST(ChannelSlice, TakesItsColumnsOfTheChannels) {
  ChannelSlice second_half("stage2.1.chunk.1", 58, 58);
  EXPECT_EQ(second_half.output_shape({Shape{2, 28, 28, 116}}), (Shape{2, 28, 28, 58}));
  EXPECT_THROW(second_half.output_shape({Shape{2, 28, 28, 115}}), Error);
}

}  // namespace
}  // namespace xtrain
