// The option-A shortcut (subsample + zero channels) against its reference twin, by hand, and on
// 1 vs 2 threads.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lib/kernels/reference/shortcut_pad.h"
#include "lib/kernels/shortcut_pad.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using kernels::ShortcutPadShape;
using testing::expect_bitwise_equal;
using testing::nans;
using testing::random_floats;

std::string describe(const ShortcutPadShape& s) {
  return "x [" + std::to_string(s.n) + ", " + std::to_string(s.h) + ", " + std::to_string(s.w) +
         ", " + std::to_string(s.c_in) + "] -> " + std::to_string(s.c_out) + " channels, stride " +
         std::to_string(s.stride);
}

size_t input_size(const ShortcutPadShape& s) { return size_t(s.n) * s.h * s.w * s.c_in; }
size_t output_size(const ShortcutPadShape& s) {
  return size_t(s.n) * s.out_h() * s.out_w() * s.c_out;
}

// Copies only: fast and reference agree bitwise.
void expect_matches_reference(const ShortcutPadShape& s) {
  SCOPED_TRACE(describe(s));
  const std::vector<float> x = random_floats(input_size(s), 1),
                           dy = random_floats(output_size(s), 2);
  std::vector<float> y = nans(output_size(s)), y_ref = nans(output_size(s));
  kernels::shortcut_pad_forward(s, x.data(), y.data(), Exec{});
  kernels::reference::shortcut_pad_forward(s, x.data(), y_ref.data());
  expect_bitwise_equal(y, y_ref, "y");
  std::vector<float> dx = nans(input_size(s)), dx_ref = nans(input_size(s));
  kernels::shortcut_pad_backward(s, dy.data(), dx.data(), Exec{});
  kernels::reference::shortcut_pad_backward(s, dy.data(), dx_ref.data());
  expect_bitwise_equal(dx, dx_ref, "dx");
}

// Odd spatial sizes (the last row/column is kept by stride 2), odd channel differences (one more
// zero channel after than before) and stride 1.
TEST(ShortcutPadKernel, MatchesReferenceOnOddShapes) {
  expect_matches_reference(ShortcutPadShape{3, 5, 7, 3, 13, 2});
  expect_matches_reference(ShortcutPadShape{3, 5, 7, 3, 6, 2});
  expect_matches_reference(ShortcutPadShape{3, 5, 7, 13, 13, 1});
  expect_matches_reference(ShortcutPadShape{3, 5, 7, 3, 13, 1});
}

// The two downsampling shortcuts of the CIFAR ResNets, batch 1.
TEST(ShortcutPadKernel, MatchesReferenceOnCifarResNetShapes) {
  expect_matches_reference(ShortcutPadShape{1, 32, 32, 16, 32, 2});
  expect_matches_reference(ShortcutPadShape{1, 16, 16, 32, 64, 2});
}

// x [1, 3, 3, 2] -> 5 channels, stride 2: keep pixels (0,0), (0,2), (2,0), (2,2); channels
// c_in=2 land at 1..2 ((5 - 2) / 2 = 1 before, 2 after).
TEST(ShortcutPadKernel, HandExample) {
  const ShortcutPadShape s{1, 3, 3, 2, 5, 2};
  ASSERT_EQ(s.out_h(), 2);
  ASSERT_EQ(s.pad_before(), 1);
  std::vector<float> x(18);
  for (int i = 0; i < 18; ++i) x[i] = float(i + 1);  // pixel p has channels {2p+1, 2p+2}
  std::vector<float> y = nans(20);
  kernels::shortcut_pad_forward(s, x.data(), y.data(), Exec{});
  EXPECT_EQ(y, (std::vector<float>{0, 1,  2,  0, 0,     // pixel 0
                                   0, 5,  6,  0, 0,     // pixel 2
                                   0, 13, 14, 0, 0,     // pixel 6
                                   0, 17, 18, 0, 0}));  // pixel 8
  std::vector<float> dy(20);
  for (int i = 0; i < 20; ++i) dy[i] = float(100 + i);
  std::vector<float> dx = nans(18);
  kernels::shortcut_pad_backward(s, dy.data(), dx.data(), Exec{});
  EXPECT_EQ(dx, (std::vector<float>{101, 102, 0, 0, 106, 107,  //
                                    0, 0, 0, 0, 0, 0,          //
                                    111, 112, 0, 0, 116, 117}));
}

TEST(ShortcutPadKernel, OneAndTwoThreadsAreBitwiseEqual) {
  testing::PoolExec two(2);
  const ShortcutPadShape s{3, 17, 15, 16, 32, 2};
  const std::vector<float> x = random_floats(input_size(s), 3),
                           dy = random_floats(output_size(s), 4);
  std::vector<float> y1(output_size(s)), y2(output_size(s));
  kernels::shortcut_pad_forward(s, x.data(), y1.data(), Exec{});
  kernels::shortcut_pad_forward(s, x.data(), y2.data(), two.exec());
  expect_bitwise_equal(y1, y2, "y");
  std::vector<float> dx1(input_size(s)), dx2(input_size(s));
  kernels::shortcut_pad_backward(s, dy.data(), dx1.data(), Exec{});
  kernels::shortcut_pad_backward(s, dy.data(), dx2.data(), two.exec());
  expect_bitwise_equal(dx1, dx2, "dx");
}

}  // namespace
}  // namespace xtrain
