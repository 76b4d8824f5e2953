// copy_columns against its twin, and 1 vs 2 threads.
#include <gtest/gtest.h>

#include <vector>

#include "lib/kernels/copy_columns.h"
#include "lib/kernels/reference/copy_columns.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using testing::expect_bitwise_equal;

// Columns [3, 3 + 32) of a 37-wide source into columns [64, 96) of a 160-wide destination (a
// dense layer's growth into its block's concatenation); the rest of dst is left alone.
TEST(CopyColumnsKernel, MatchesReferenceAndLeavesOtherColumns) {
  testing::PoolExec two(2);
  for (const int64_t rows : {int64_t{1}, int64_t{7}, int64_t{2 * 28 * 28}}) {
    const std::vector<float> src = testing::random_floats(rows * 37, 1);
    const std::vector<float> background = testing::random_floats(rows * 160, 2);
    std::vector<float> one = background, both = background, ref = background;
    const auto block = [&](std::vector<float>& dst) {
      return kernels::ColumnBlock{src.data(), 37, 3, dst.data(), 160, 64, 32};
    };
    kernels::copy_columns(rows, block(one), Exec{});
    kernels::copy_columns(rows, block(both), two.exec());
    kernels::reference::copy_columns(rows, block(ref));
    expect_bitwise_equal(one, ref, "one thread");
    expect_bitwise_equal(both, ref, "two threads");
    EXPECT_EQ(ref[64], src[3]);
    EXPECT_EQ(ref[63], background[63]);
    EXPECT_EQ(ref[96], background[96]);
  }
}

// The backward of taking columns [5, 5 + 3) of 11: dy in those columns of dx, zeros around them,
// whatever dx held.
TEST(CopyColumnsKernel, ZeroOthersMatchesReference) {
  testing::PoolExec two(2);
  for (const int64_t rows : {int64_t{1}, int64_t{7}, int64_t{2 * 28 * 28}}) {
    const std::vector<float> src = testing::random_floats(rows * 3, 1);
    const std::vector<float> background = testing::random_floats(rows * 11, 2);
    std::vector<float> one = background, both = background, ref = background;
    const auto block = [&](std::vector<float>& dst) {
      return kernels::ColumnBlock{src.data(), 3, 0, dst.data(), 11, 5, 3};
    };
    kernels::copy_columns_zero_others(rows, block(one), Exec{});
    kernels::copy_columns_zero_others(rows, block(both), two.exec());
    kernels::reference::copy_columns_zero_others(rows, block(ref));
    expect_bitwise_equal(one, ref, "one thread");
    expect_bitwise_equal(both, ref, "two threads");
    EXPECT_EQ(ref[5], src[0]);
    EXPECT_EQ(ref[4], 0.0f);
    EXPECT_EQ(ref[8], 0.0f);
    EXPECT_EQ(ref[10], 0.0f);
  }
}

}  // namespace
}  // namespace xtrain
