// Element-wise add and accumulate against their reference twin, with aliasing and 1 vs 2 threads.
#include <gtest/gtest.h>

#include <vector>

#include "lib/kernels/add.h"
#include "lib/kernels/reference/add.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using testing::expect_bitwise_equal;
using testing::nans;
using testing::random_floats;

using testing::kElementwiseSizes;

TEST(AddKernel, ForwardMatchesReference) {
  for (int64_t n : kElementwiseSizes) {
    SCOPED_TRACE(n);
    const std::vector<float> a = random_floats(n, 1), b = random_floats(n, 2);
    std::vector<float> y = nans(n), y_ref = nans(n);
    kernels::add_forward(n, a.data(), b.data(), y.data(), Exec{});
    kernels::reference::add_forward(n, a.data(), b.data(), y_ref.data());
    EXPECT_EQ(y, y_ref);
  }
}

TEST(AddKernel, AccumulateMatchesReference) {
  for (int64_t n : kElementwiseSizes) {
    SCOPED_TRACE(n);
    const std::vector<float> x = random_floats(n, 3);
    std::vector<float> y = random_floats(n, 4), y_ref = y;
    kernels::accumulate(n, x.data(), y.data(), Exec{});
    kernels::reference::accumulate(n, x.data(), y_ref.data());
    EXPECT_EQ(y, y_ref);
  }
}

TEST(AddKernel, HandExample) {
  const std::vector<float> a = {1.0f, -2.0f, 0.5f}, b = {10.0f, 2.0f, 0.25f};
  std::vector<float> y = nans(3);
  kernels::add_forward(3, a.data(), b.data(), y.data(), Exec{});
  EXPECT_EQ(y, (std::vector<float>{11.0f, 0.0f, 0.75f}));
  kernels::accumulate(3, a.data(), y.data(), Exec{});
  EXPECT_EQ(y, (std::vector<float>{12.0f, -2.0f, 1.25f}));
}

// y may alias a or b (the residual add writes over one of its inputs).
TEST(AddKernel, OutputMayAliasEitherInput) {
  const int64_t n = 3 * 5 * 7 * 13;
  const std::vector<float> a = random_floats(n, 5), b = random_floats(n, 6);
  std::vector<float> expected(n);
  kernels::reference::add_forward(n, a.data(), b.data(), expected.data());

  std::vector<float> over_a = a;
  kernels::add_forward(n, over_a.data(), b.data(), over_a.data(), Exec{});
  EXPECT_EQ(over_a, expected);
  std::vector<float> over_b = b;
  kernels::add_forward(n, a.data(), over_b.data(), over_b.data(), Exec{});
  EXPECT_EQ(over_b, expected);
}

TEST(AddKernel, OneAndTwoThreadsAreBitwiseEqual) {
  testing::PoolExec two(2);
  const int64_t n = 56 * 56 * 256 + 1;
  const std::vector<float> a = random_floats(n, 7), b = random_floats(n, 8);
  std::vector<float> y1(n), y2(n);
  kernels::add_forward(n, a.data(), b.data(), y1.data(), Exec{});
  kernels::add_forward(n, a.data(), b.data(), y2.data(), two.exec());
  expect_bitwise_equal(y1, y2, "y");
  kernels::accumulate(n, a.data(), y1.data(), Exec{});
  kernels::accumulate(n, a.data(), y2.data(), two.exec());
  expect_bitwise_equal(y1, y2, "accumulated y");
}

}  // namespace
}  // namespace xtrain
