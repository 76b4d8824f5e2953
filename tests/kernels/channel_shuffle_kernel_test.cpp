// channel_shuffle against its twin, 1 vs 2 threads, and torch's channel_shuffle by hand.
#include <gtest/gtest.h>

#include <vector>

#include "lib/kernels/channel_shuffle.h"
#include "lib/kernels/reference/channel_shuffle.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using testing::expect_bitwise_equal;

struct Part {
  int first, width;
};

// Parts that start and end inside a group as well as on its edges; every column of y written once.
TEST(ChannelShuffleKernel, MatchesReferenceForEveryPart) {
  testing::PoolExec two(2);
  const struct {
    int channels, groups;
    std::vector<Part> parts;
  } kCases[] = {{8, 2, {{0, 4}, {4, 4}}},           // ShuffleNetV2's two branches
                {232, 2, {{0, 116}, {116, 116}}},   // shufflenet_v2_x1_0's stage3
                {12, 3, {{0, 5}, {5, 2}, {7, 5}}},  // parts across group edges
                {9, 3, {{0, 9}}}};                  // one input
  for (const auto& c : kCases) {
    for (const int64_t rows : {int64_t{1}, int64_t{5}, int64_t{2 * 28 * 28}}) {
      const kernels::ChannelShuffleShape s{rows, c.channels, c.groups};
      const std::vector<float> dy = testing::random_floats(rows * c.channels, 7);
      std::vector<float> one(rows * c.channels, -9.0f), both = one, ref = one;
      for (const Part& p : c.parts) {
        const std::vector<float> x = testing::random_floats(rows * p.width, p.first + 1);
        kernels::channel_shuffle_forward(s, p.first, p.width, x.data(), one.data(), Exec{});
        kernels::channel_shuffle_forward(s, p.first, p.width, x.data(), both.data(), two.exec());
        kernels::reference::channel_shuffle_forward(s, p.first, p.width, x.data(), ref.data());
        std::vector<float> dx_one(rows * p.width, -9.0f), dx_both = dx_one, dx_ref = dx_one;
        kernels::channel_shuffle_backward(s, p.first, p.width, dy.data(), dx_one.data(), Exec{});
        kernels::channel_shuffle_backward(s, p.first, p.width, dy.data(), dx_both.data(),
                                          two.exec());
        kernels::reference::channel_shuffle_backward(s, p.first, p.width, dy.data(), dx_ref.data());
        expect_bitwise_equal(dx_one, dx_ref, "dx, one thread");
        expect_bitwise_equal(dx_both, dx_ref, "dx, two threads");
      }
      expect_bitwise_equal(one, ref, "y, one thread");
      expect_bitwise_equal(both, ref, "y, two threads");
      for (float v : ref) EXPECT_NE(v, -9.0f) << "a column of y left unwritten";
    }
  }
}

// torch: x = arange(6).view(1, 6, 1, 1); channel_shuffle(x, 2) is [0, 3, 1, 4, 2, 5] and
// channel_shuffle(x, 3) is [0, 2, 4, 1, 3, 5].
TEST(ChannelShuffleKernel, IsTorchvisionsChannelShuffle) {
  const std::vector<float> x = {0, 1, 2, 3, 4, 5};
  std::vector<float> y(6);
  kernels::channel_shuffle_forward({1, 6, 2}, 0, 6, x.data(), y.data(), Exec{});
  EXPECT_EQ(y, (std::vector<float>{0, 3, 1, 4, 2, 5}));
  kernels::channel_shuffle_forward({1, 6, 3}, 0, 6, x.data(), y.data(), Exec{});
  EXPECT_EQ(y, (std::vector<float>{0, 2, 4, 1, 3, 5}));
}

}  // namespace
}  // namespace xtrain
