#include "lib/nn/channel_shuffle.h"

#include <gtest/gtest.h>

#include "lib/base/check.h"
#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

// ShuffleNetV2's shuffle of its two branches' concatenation: each branch's gradient gathers its
// shuffled columns of the output's.
TEST(ChannelShuffle, GradientsMatchFiniteDifferences) {
  ChannelShuffle shuffle("stage2.1.shuffle", 2);
  check_layer_gradients(shuffle, {Shape{2, 3, 2, 3}, Shape{2, 3, 2, 3}},
                        testing::GradCheckOptions{});
}

// Three inputs of different widths, three groups: parts that straddle the groups' edges.
TEST(ChannelShuffle, GradientsMatchFiniteDifferencesAcrossGroups) {
  ChannelShuffle shuffle("shuffle", 3);
  check_layer_gradients(shuffle, {Shape{2, 2, 3, 4}, Shape{2, 2, 3, 1}, Shape{2, 2, 3, 4}},
                        testing::GradCheckOptions{});
}

TEST(ChannelShuffle, ChannelsAddUpAndSplitIntoTheGroups) {
  ChannelShuffle shuffle("stage3.0.shuffle", 2);
  EXPECT_EQ(shuffle.output_shape({Shape{2, 14, 14, 116}, Shape{2, 14, 14, 116}}),
            (Shape{2, 14, 14, 232}));
  EXPECT_THROW(shuffle.output_shape({Shape{2, 14, 14, 3}}), Error);
  EXPECT_THROW(shuffle.output_shape({Shape{2, 14, 14, 4}, Shape{2, 7, 14, 4}}), Error);
}

}  // namespace
}  // namespace xtrain
