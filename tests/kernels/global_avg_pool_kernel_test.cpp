// Global average pooling against its reference twin, by hand, and on 1 vs 2 threads.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lib/kernels/global_avg_pool.h"
#include "lib/kernels/reference/global_avg_pool.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using kernels::GlobalAvgPoolShape;
using testing::expect_bitwise_equal;
using testing::expect_close_to_reference;
using testing::nans;
using testing::random_floats;

constexpr float kRtol = 1e-4f;

void expect_matches_reference(const GlobalAvgPoolShape& s) {
  SCOPED_TRACE("[N " + std::to_string(s.n) + ", HW " + std::to_string(s.hw) + ", C " +
               std::to_string(s.c) + "]");
  const size_t in = size_t(s.n) * s.hw * s.c, out = size_t(s.n) * s.c;
  const std::vector<float> x = random_floats(in, 1, 0.0f, 2.0f), dy = random_floats(out, 2);
  std::vector<float> y = nans(out), y_ref = nans(out);
  kernels::global_avg_pool_forward(s, x.data(), y.data(), Exec{});
  kernels::reference::global_avg_pool_forward(s, x.data(), y_ref.data());
  expect_close_to_reference(y, y_ref, kRtol, "y");
  std::vector<float> dx = nans(in), dx_ref = nans(in);
  kernels::global_avg_pool_backward(s, dy.data(), dx.data(), Exec{});
  kernels::reference::global_avg_pool_backward(s, dy.data(), dx_ref.data());
  expect_close_to_reference(dx, dx_ref, kRtol, "dx");
}

TEST(GlobalAvgPoolKernel, MatchesReferenceOnOddShapes) {
  expect_matches_reference(GlobalAvgPoolShape{3, 5 * 7, 3});
  expect_matches_reference(GlobalAvgPoolShape{3, 5 * 7, 13});
  expect_matches_reference(GlobalAvgPoolShape{1, 1, 13});
}

// ResNet-50's head (7x7x2048) and a large spatial extent (56x56x64), batch 1.
TEST(GlobalAvgPoolKernel, MatchesReferenceOnResNet50Shapes) {
  expect_matches_reference(GlobalAvgPoolShape{1, 7 * 7, 2048});
  expect_matches_reference(GlobalAvgPoolShape{1, 56 * 56, 64});
}

// Two samples, two channels, four pixels each: y is the per-sample, per-channel mean; dx spreads
// dy evenly.
TEST(GlobalAvgPoolKernel, HandExample) {
  const GlobalAvgPoolShape s{2, 4, 2};
  const std::vector<float> x = {1, 10, 2, 20, 3, 30, 4, 40,  // sample 0: [hw, c]
                                0, -1, 0, -1, 0, -1, 8, -1};
  std::vector<float> y = nans(4);
  kernels::global_avg_pool_forward(s, x.data(), y.data(), Exec{});
  EXPECT_EQ(y, (std::vector<float>{2.5f, 25.0f, 2.0f, -1.0f}));
  const std::vector<float> dy = {4, 8, -2, 1};
  std::vector<float> dx = nans(16);
  kernels::global_avg_pool_backward(s, dy.data(), dx.data(), Exec{});
  EXPECT_EQ(dx, (std::vector<float>{1, 2, 1, 2, 1, 2, 1, 2,  //
                                    -0.5f, 0.25f, -0.5f, 0.25f, -0.5f, 0.25f, -0.5f, 0.25f}));
}

TEST(GlobalAvgPoolKernel, OneAndTwoThreadsAreBitwiseEqual) {
  testing::PoolExec two(2);
  const GlobalAvgPoolShape s{3, 7 * 7, 2048};
  const std::vector<float> x = random_floats(size_t(s.n) * s.hw * s.c, 3),
                           dy = random_floats(size_t(s.n) * s.c, 4);
  std::vector<float> y1(size_t(s.n) * s.c), y2(y1.size());
  kernels::global_avg_pool_forward(s, x.data(), y1.data(), Exec{});
  kernels::global_avg_pool_forward(s, x.data(), y2.data(), two.exec());
  expect_bitwise_equal(y1, y2, "y");
  std::vector<float> dx1(x.size()), dx2(x.size());
  kernels::global_avg_pool_backward(s, dy.data(), dx1.data(), Exec{});
  kernels::global_avg_pool_backward(s, dy.data(), dx2.data(), two.exec());
  expect_bitwise_equal(dx1, dx2, "dx");
}

}  // namespace
}  // namespace xtrain
