// The one reduction order of the all-reduces, in and across processes.
#include "lib/parallel/pairwise_sum.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/parallel/tree_sum_reference.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

std::vector<float*> pointers(std::vector<std::vector<float>>& buffers) {
  std::vector<float*> blocks;
  for (auto& buffer : buffers) blocks.push_back(buffer.data());
  return blocks;
}

TEST(PairwiseSum, AddsInTheTreeOrderForAnyCount) {
  for (int count = 1; count <= 9; ++count) {
    SCOPED_TRACE(count);
    std::vector<std::vector<float>> buffers;
    for (int r = 0; r < count; ++r)
      buffers.push_back(testing::random_floats(1000, 50 + r, -1e4f, 1e4f));
    const std::vector<float> expected = testing::tree_sum(buffers);
    pairwise_sum(pointers(buffers).data(), count, 1000);
    EXPECT_EQ(buffers[0], expected);
  }
}

// The sum may land in another buffer, or in any of the blocks (ProcessGroup::sum adds a rank's own
// slice in place, wherever it sits in the tree), with the same bytes.
TEST(PairwiseSum, IntoAnyBufferGivesTheSameBytes) {
  for (int count = 1; count <= 9; ++count) {
    for (int into = -1; into < count; ++into) {
      SCOPED_TRACE(::testing::Message() << count << " blocks, into " << into);
      std::vector<std::vector<float>> buffers;
      for (int r = 0; r < count; ++r)
        buffers.push_back(testing::random_floats(1000, 90 + r, -1e4f, 1e4f));
      const std::vector<float> expected = testing::tree_sum(buffers);
      std::vector<float> other(1000);
      float* out = into < 0 ? other.data() : buffers[into].data();
      pairwise_sum_into(out, pointers(buffers).data(), count, 1000);
      EXPECT_EQ(std::vector<float>(out, out + 1000), expected);
    }
  }
}

// The order shows in the result: a left fold of these four gives 1, the tree 0.
TEST(PairwiseSum, IsNotALeftFold) {
  std::vector<std::vector<float>> buffers = {{1e8f}, {1.0f}, {-1e8f}, {1.0f}};
  pairwise_sum(pointers(buffers).data(), 4, 1);
  EXPECT_EQ(buffers[0][0], (1e8f + 1.0f) + (-1e8f + 1.0f));
  EXPECT_NE(buffers[0][0], ((1e8f + 1.0f) + -1e8f) + 1.0f);
}

// A power-of-two group of replicas is a whole subtree: summing groups first, then the groups'
// sums, gives the same bytes as summing every replica at once. This is why 1 x 4, 2 x 2 and
// 4 x 1 placements train alike.
TEST(PairwiseSum, GroupsOfPowerOfTwoSizeGiveTheWholeSum) {
  for (int per_group : {1, 2, 4}) {
    SCOPED_TRACE(per_group);
    std::vector<std::vector<float>> buffers;
    for (int r = 0; r < 8; ++r) buffers.push_back(testing::random_floats(777, 70 + r, -1e4f, 1e4f));
    const std::vector<float> expected = testing::tree_sum(buffers);
    std::vector<float*> blocks = pointers(buffers), group_sums;
    for (int g = 0; g < 8; g += per_group) {
      pairwise_sum(blocks.data() + g, per_group, 777);
      group_sums.push_back(blocks[g]);
    }
    pairwise_sum(group_sums.data(), static_cast<int>(group_sums.size()), 777);
    EXPECT_EQ(buffers[0], expected);
  }
}

}  // namespace
}  // namespace xtrain
