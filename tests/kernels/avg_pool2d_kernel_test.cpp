// Average-pooling kernels against their reference twin, against torch on small hand cases, and
// 1 vs 2 threads.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lib/kernels/avg_pool2d.h"
#include "lib/kernels/reference/avg_pool2d.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using kernels::AvgPool2dShape;
using testing::expect_bitwise_equal;
using testing::nans;
using testing::random_floats;

// A fixed window sweep (AvgPool2d) or adaptive bins (kernel 0).
AvgPool2dShape fixed(int n, int h, int w, int c, int kernel, int stride, int pad) {
  return {n,
          h,
          w,
          c,
          (h + 2 * pad - kernel) / stride + 1,
          (w + 2 * pad - kernel) / stride + 1,
          kernel,
          stride,
          pad};
}
AvgPool2dShape adaptive(int n, int h, int w, int c, int out_h, int out_w) {
  return {n, h, w, c, out_h, out_w};
}

std::string describe(const AvgPool2dShape& s) {
  return "x [" + std::to_string(s.n) + ", " + std::to_string(s.h) + ", " + std::to_string(s.w) +
         ", " + std::to_string(s.c) + "] -> " + std::to_string(s.out_h) + "x" +
         std::to_string(s.out_w) + " kernel " + std::to_string(s.kernel);
}

size_t input_size(const AvgPool2dShape& s) { return size_t(s.n) * s.h * s.w * s.c; }
size_t output_size(const AvgPool2dShape& s) { return size_t(s.n) * s.out_h * s.out_w * s.c; }

struct Outputs {
  std::vector<float> y, dx;
};

Outputs run_fast(const AvgPool2dShape& s, const std::vector<float>& x, const std::vector<float>& dy,
                 const Exec& ex) {
  Outputs o{nans(output_size(s)), nans(input_size(s))};
  kernels::avg_pool2d_forward(s, x.data(), o.y.data(), ex);
  kernels::avg_pool2d_backward(s, dy.data(), o.dx.data(), ex);
  return o;
}

// Both sum each bin in the same order, so they agree bitwise.
void expect_matches_reference(const AvgPool2dShape& s) {
  SCOPED_TRACE(describe(s));
  const std::vector<float> x = random_floats(input_size(s), 1),
                           dy = random_floats(output_size(s), 2);
  const Outputs fast = run_fast(s, x, dy, Exec{});
  std::vector<float> y = nans(output_size(s)), dx = nans(input_size(s));
  kernels::reference::avg_pool2d_forward(s, x.data(), y.data());
  kernels::reference::avg_pool2d_backward(s, dy.data(), dx.data());
  expect_bitwise_equal(fast.y, y, "y");
  expect_bitwise_equal(fast.dx, dx, "dx");
}

// DenseNet's transition (2x2 s2, odd sides drop a row), Inception's 3x3 s1 p1, and adaptive bins
// that tile, overlap (13 -> 6) and repeat rows (2 -> 7, 1 -> 7).
TEST(AvgPool2dKernel, MatchesReference) {
  for (const AvgPool2dShape& s :
       {fixed(2, 7, 6, 5, 2, 2, 0), fixed(2, 5, 5, 20, 3, 1, 1), fixed(1, 8, 9, 3, 3, 2, 1),
        adaptive(2, 7, 7, 5, 7, 7), adaptive(2, 13, 11, 3, 6, 6), adaptive(1, 2, 3, 4, 7, 7),
        adaptive(3, 1, 1, 2, 7, 7), adaptive(1, 5, 5, 17, 3, 3)}) {
    expect_matches_reference(s);
  }
}

std::vector<float> ramp(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = float(i);
  return v;
}

// Values from torch (one channel, so NHWC = NCHW): F.avg_pool2d and F.adaptive_avg_pool2d of
// torch.arange(h * w).reshape(1, 1, h, w).
TEST(AvgPool2dKernel, HandCasesAreTorchs) {
  const auto forward = [](const AvgPool2dShape& s) {
    std::vector<float> x = ramp(s.h * s.w), y = nans(output_size(s));
    kernels::avg_pool2d_forward(s, x.data(), y.data(), Exec{});
    return y;
  };
  // F.avg_pool2d(x, 3, 1, 1) on 3x3: the padding counts, so a corner is (0 + 1 + 3 + 4) / 9.
  const std::vector<float> padded = forward(fixed(1, 3, 3, 1, 3, 1, 1));
  const float torch_padded[] = {0.8888888955f, 1.6666666269f, 1.3333333731f, 2.3333332539f, 4.0f,
                                3.0f,          2.2222223282f, 3.6666667461f, 2.6666667461f};
  for (int i = 0; i < 9; ++i) EXPECT_FLOAT_EQ(padded[i], torch_padded[i]) << i;
  EXPECT_EQ(forward(fixed(1, 4, 5, 1, 2, 2, 0)), (std::vector<float>{3, 5, 13, 15}));
  EXPECT_EQ(forward(adaptive(1, 5, 5, 1, 3, 3)),
            (std::vector<float>{3, 4.5, 6, 10.5, 12, 13.5, 18, 19.5, 21}));
  EXPECT_EQ(forward(adaptive(1, 2, 3, 1, 3, 4)),
            (std::vector<float>{0, 0.5, 1.5, 2, 1.5, 2, 3, 3.5, 3, 3.5, 4.5, 5}));
}

// The forward splits output rows, the backward whole images.
TEST(AvgPool2dKernel, OneAndTwoThreadsAreBitwiseEqual) {
  testing::PoolExec two(2);
  for (const AvgPool2dShape& s : {fixed(3, 35, 35, 24, 3, 1, 1), adaptive(3, 13, 13, 40, 6, 6)}) {
    SCOPED_TRACE(describe(s));
    const std::vector<float> x = random_floats(input_size(s), 3),
                             dy = random_floats(output_size(s), 4);
    const Outputs one = run_fast(s, x, dy, Exec{}), both = run_fast(s, x, dy, two.exec());
    expect_bitwise_equal(one.y, both.y, "y");
    expect_bitwise_equal(one.dx, both.dx, "dx");
  }
}

}  // namespace
}  // namespace xtrain
