// MaxPool2d kernels against their reference twin, with ties, padding and 1 vs 2 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "lib/kernels/max_pool2d.h"
#include "lib/kernels/reference/max_pool2d.h"
#include "lib/kernels/thread_scratch.h"
#include "lib/tensor/bfloat16.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using kernels::MaxPool2dShape;
using testing::expect_bitwise_equal;
using testing::nans;
using testing::random_floats;
using testing::to_bfloat16s;
using testing::to_floats;

std::string describe(const MaxPool2dShape& s) {
  return "x [" + std::to_string(s.n) + ", " + std::to_string(s.h) + ", " + std::to_string(s.w) +
         ", " + std::to_string(s.c) + "] kernel " + std::to_string(s.kernel) + " stride " +
         std::to_string(s.stride) + " pad " + std::to_string(s.pad) + (s.ceil_mode ? " ceil" : "");
}

size_t input_size(const MaxPool2dShape& s) { return size_t(s.n) * s.h * s.w * s.c; }
size_t output_size(const MaxPool2dShape& s) { return size_t(s.n) * s.out_h() * s.out_w() * s.c; }

// Max-pooling picks an input and the backward scatters dy unchanged, so fast and reference
// agree bitwise (a position that wins several windows sums their dy in the same order).
void expect_matches_reference(const MaxPool2dShape& s, const std::vector<float>& x) {
  SCOPED_TRACE(describe(s));
  const std::vector<float> dy = random_floats(output_size(s), 2);
  std::vector<float> y = nans(output_size(s)), y_ref = nans(output_size(s));
  kernels::max_pool2d_forward(s, x.data(), y.data(), Exec{});
  kernels::reference::max_pool2d_forward(s, x.data(), y_ref.data());
  expect_bitwise_equal(y, y_ref, "y");
  std::vector<float> dx = nans(input_size(s)), dx_ref = nans(input_size(s));
  kernels::max_pool2d_backward(s, x.data(), dy.data(), dx.data(), Exec{});
  kernels::reference::max_pool2d_backward(s, x.data(), dy.data(), dx_ref.data());
  expect_bitwise_equal(dx, dx_ref, "dx");
}

const MaxPool2dShape kOddShapes[] = {{3, 5, 7, 3, 3, 2, 1},  {3, 5, 7, 13, 3, 2, 1},
                                     {3, 5, 7, 13, 2, 2, 0}, {3, 5, 7, 3, 3, 1, 1},
                                     {3, 5, 7, 13, 3, 1, 0}, {3, 5, 7, 3, 5, 2, 2}};

TEST(MaxPool2dKernel, MatchesReferenceOnOddShapes) {
  for (const MaxPool2dShape& s : kOddShapes)
    expect_matches_reference(s, random_floats(input_size(s), 1));
}

// ceil_mode (SqueezeNet): the last window runs past the bottom and right edges and takes the
// maximum of what lies inside.
TEST(MaxPool2dKernel, CeilModeMatchesReferenceAndTorch) {
  for (const MaxPool2dShape& s :
       {MaxPool2dShape{3, 8, 9, 5, 3, 2, 0, true}, MaxPool2dShape{2, 6, 6, 19, 3, 2, 1, true},
        MaxPool2dShape{2, 5, 5, 3, 2, 2, 0, true}, MaxPool2dShape{1, 54, 54, 16, 3, 2, 0, true}}) {
    expect_matches_reference(s, random_floats(input_size(s), 8));
  }
  // torch: F.max_pool2d(torch.arange(36.).reshape(1, 1, 6, 6), 3, 2, ceil_mode=True)
  const MaxPool2dShape s{1, 6, 6, 1, 3, 2, 0, true};
  std::vector<float> x(36), y = nans(9);
  for (int i = 0; i < 36; ++i) x[i] = float(i);
  kernels::max_pool2d_forward(s, x.data(), y.data(), Exec{});
  EXPECT_EQ(y, (std::vector<float>{14, 16, 17, 26, 28, 29, 32, 34, 35}));
}

// Output sides as torch's F.max_pool2d gives them (side, kernel, stride, padding: floor, ceil).
TEST(PoolSize, IsTorchsInFloorAndCeilMode) {
  struct Case {
    int in, kernel, stride, pad, floor, ceil;
  };
  for (const Case& c :
       {Case{8, 3, 2, 0, 3, 4}, Case{54, 3, 2, 0, 26, 27}, Case{55, 3, 2, 0, 27, 27},
        Case{6, 3, 2, 1, 3, 4}, Case{5, 2, 2, 0, 2, 3}, Case{4, 3, 3, 1, 2, 2},
        Case{2, 3, 2, 1, 1, 2}, Case{2, 3, 2, 0, 0, 1}, Case{1, 3, 2, 0, 0, 0}}) {
    EXPECT_EQ(kernels::pooled_size(c.in, c.kernel, c.stride, c.pad, false), c.floor) << c.in;
    EXPECT_EQ(kernels::pooled_size(c.in, c.kernel, c.stride, c.pad, true), c.ceil) << c.in;
  }
}

// ResNet-50's stem pool: 3x3 stride 2 padding 1 over 112x112x64, batch 1.
TEST(MaxPool2dKernel, MatchesReferenceOnResNet50Stem) {
  const MaxPool2dShape s{1, 112, 112, 64, 3, 2, 1};
  expect_matches_reference(s, random_floats(input_size(s), 3));
}

// Inputs drawn from {0, 1, 2}: most windows hold ties, and each tie goes to the same (first)
// position as in the reference.
TEST(MaxPool2dKernel, TiesMatchReference) {
  for (const MaxPool2dShape& s : kOddShapes) {
    std::vector<float> x = random_floats(input_size(s), 4, 0.0f, 3.0f);
    for (float& v : x) v = static_cast<float>(static_cast<int>(v));
    expect_matches_reference(s, x);
  }
}

// A constant image: every window is one big tie. Each window sends its whole gradient to
// exactly one position, its first in scan order (top-left).
TEST(MaxPool2dKernel, TieSendsTheGradientToTheFirstPositionOnly) {
  const MaxPool2dShape s{1, 4, 4, 1, 2, 2, 0};
  const std::vector<float> x(16, 5.0f), dy = {1.0f, 2.0f, 3.0f, 4.0f};
  std::vector<float> y = nans(4), dx = nans(16);
  kernels::max_pool2d_forward(s, x.data(), y.data(), Exec{});
  EXPECT_EQ(y, std::vector<float>(4, 5.0f));
  kernels::max_pool2d_backward(s, x.data(), dy.data(), dx.data(), Exec{});
  const std::vector<float> expected = {1, 0, 2, 0,  //
                                       0, 0, 0, 0,  //
                                       3, 0, 4, 0,  //
                                       0, 0, 0, 0};
  EXPECT_EQ(dx, expected);

  // Overlapping windows (3x3 stride 1 padding 1) over the constant image: every output's
  // gradient lands once, on its window's first in-image position.
  const MaxPool2dShape overlap{1, 4, 4, 1, 3, 1, 1};
  const std::vector<float> ones(16, 1.0f);
  kernels::max_pool2d_backward(overlap, x.data(), ones.data(), dx.data(), Exec{});
  float total = 0.0f;
  for (float v : dx) total += v;
  EXPECT_EQ(total, 16.0f);
  EXPECT_EQ(dx[0], 4.0f);  // first position of the windows at (0,0), (0,1), (1,0), (1,1)
  expect_matches_reference(overlap, x);
}

// Padding acts as -infinity: over an all-negative image the padded border never wins, outputs
// are real inputs (not 0) and every gradient reaches the image.
TEST(MaxPool2dKernel, PaddingNeverWins) {
  const MaxPool2dShape s{3, 5, 7, 13, 3, 2, 1};
  const std::vector<float> x = random_floats(input_size(s), 5, -3.0f, -1.0f);
  std::vector<float> y = nans(output_size(s));
  kernels::max_pool2d_forward(s, x.data(), y.data(), Exec{});
  for (float v : y) {
    ASSERT_LT(v, -0.99f);
    ASSERT_GE(v, -3.0f);
  }
  const std::vector<float> dy(output_size(s), 1.0f);
  std::vector<float> dx = nans(input_size(s));
  kernels::max_pool2d_backward(s, x.data(), dy.data(), dx.data(), Exec{});
  double total = 0.0;
  for (float v : dx) total += v;
  EXPECT_EQ(total, double(output_size(s)));
  expect_matches_reference(s, x);

  // By hand: a 2x2 image, 3x3 window with padding 1 sees the whole image.
  const MaxPool2dShape small{1, 2, 2, 1, 3, 1, 1};
  const std::vector<float> neg = {-4.0f, -2.0f, -3.0f, -5.0f};
  std::vector<float> out = nans(4);
  kernels::max_pool2d_forward(small, neg.data(), out.data(), Exec{});
  EXPECT_EQ(out, std::vector<float>(4, -2.0f));
}

// The forward splits output rows, the backward whole images (batch 2 here, so both threads
// work); 19 channels leave a tail after a full block of 16.
TEST(MaxPool2dKernel, OneAndTwoThreadsAreBitwiseEqual) {
  testing::PoolExec two(2);
  for (const MaxPool2dShape& s :
       {MaxPool2dShape{2, 112, 112, 64, 3, 2, 1}, MaxPool2dShape{3, 5, 7, 19, 3, 2, 1}}) {
    SCOPED_TRACE(describe(s));
    std::vector<float> x = random_floats(input_size(s), 6, 0.0f, 4.0f);
    for (size_t i = 0; i < x.size(); i += 2) x[i] = static_cast<float>(static_cast<int>(x[i]));
    const std::vector<float> dy = random_floats(output_size(s), 7);
    std::vector<float> y1(output_size(s)), y2(output_size(s));
    kernels::max_pool2d_forward(s, x.data(), y1.data(), Exec{});
    kernels::max_pool2d_forward(s, x.data(), y2.data(), two.exec());
    expect_bitwise_equal(y1, y2, "y");
    std::vector<float> dx1(input_size(s)), dx2(input_size(s));
    kernels::max_pool2d_backward(s, x.data(), dy.data(), dx1.data(), Exec{});
    kernels::max_pool2d_backward(s, x.data(), dy.data(), dx2.data(), two.exec());
    expect_bitwise_equal(dx1, dx2, "dx");
  }
}

// In a bfloat16 plan x, dx and (unless a reader of y keeps float32) y, dy are bfloat16. On the
// same values the float32 kernels give the bits: y exactly (a maximum is one of its inputs), dx
// rounded once (both pick the same maxima and sum the same gradients in the same order; the
// bfloat16 one in a ring of float32 rows).
void expect_bfloat16_matches_float32(const MaxPool2dShape& s, const Exec& ex, bool bfloat16_y) {
  SCOPED_TRACE(describe(s) + (bfloat16_y ? ", bfloat16 y" : ", float32 y"));
  std::vector<float> x = random_floats(input_size(s), 9, -2.0f, 2.0f);
  std::vector<float> dy = random_floats(output_size(s), 10);
  for (float& v : x) v = round_to_bfloat16(v);
  if (bfloat16_y) {
    for (float& v : dy) v = round_to_bfloat16(v);
  }
  std::vector<float> y_ref = nans(output_size(s)), dx_ref = nans(input_size(s));
  kernels::max_pool2d_forward(s, x.data(), y_ref.data(), Exec{});
  kernels::max_pool2d_backward(s, x.data(), dy.data(), dx_ref.data(), Exec{});

  const std::vector<BFloat16> x_b = to_bfloat16s(x), dy_b = to_bfloat16s(dy);
  std::vector<BFloat16> dx_b = to_bfloat16s(nans(input_size(s)));
  if (bfloat16_y) {
    std::vector<BFloat16> y_b = to_bfloat16s(nans(output_size(s)));
    kernels::max_pool2d_forward(s, x_b.data(), y_b.data(), ex);
    expect_bitwise_equal(to_floats(y_b), y_ref, "y");
    kernels::max_pool2d_backward(s, x_b.data(), dy_b.data(), dx_b.data(), ex);
  } else {
    std::vector<float> y = nans(output_size(s));
    kernels::max_pool2d_forward(s, x_b.data(), y.data(), ex);
    expect_bitwise_equal(y, y_ref, "y");
    kernels::max_pool2d_backward(s, x_b.data(), dy.data(), dx_b.data(), ex);
  }
  for (float& v : dx_ref) v = round_to_bfloat16(v);
  expect_bitwise_equal(to_floats(dx_b), dx_ref, "dx");
}

// Odd shapes, a stride past the kernel (rows no window reaches), ceil_mode, and ResNet's stem on
// two images, on one and two threads.
TEST(MaxPool2dKernel, BFloat16GivesTheFloat32KernelsBits) {
  testing::PoolExec two(2);
  std::vector<MaxPool2dShape> shapes(std::begin(kOddShapes), std::end(kOddShapes));
  shapes.push_back({2, 7, 8, 17, 2, 3, 0});
  shapes.push_back({2, 6, 6, 19, 3, 2, 1, true});
  shapes.push_back({2, 112, 112, 64, 3, 2, 1});
  for (const MaxPool2dShape& s : shapes) {
    for (bool bfloat16_y : {true, false}) {
      expect_bfloat16_matches_float32(s, Exec{}, bfloat16_y);
      expect_bfloat16_matches_float32(s, two.exec(), bfloat16_y);
    }
  }
}

// In a plan each thread sums its rows in its slice of Exec::scratch (sized exactly: an overrun is
// a heap overflow under AddressSanitizer); rows too wide for a slice get a ring of their own.
TEST(MaxPool2dKernel, BFloat16SumsInTheExecsScratch) {
  testing::PoolExec two(2);
  std::vector<float> scratch(2 * kernels::thread_scratch_floats());
  Exec planned = two.exec();
  planned.scratch = scratch.data();
  expect_bfloat16_matches_float32({2, 112, 112, 64, 3, 2, 1}, planned, true);
  EXPECT_NE(std::count(scratch.begin(), scratch.end(), 0.0f), static_cast<long>(scratch.size()))
      << "the scratch was not used";
  const MaxPool2dShape wide{2, 4, 200, 1000, 3, 1, 1};  // a ring of 3 x 200 x 1000 floats
  ASSERT_GT(3u * 200 * 1000, kernels::thread_scratch_floats());
  expect_bfloat16_matches_float32(wide, planned, true);
}

}  // namespace
}  // namespace xtrain
