// ReLU kernels against their reference twin, in place, at the kink, and on 1 vs 2 threads.
#include <gtest/gtest.h>

#include <vector>

#include "lib/kernels/reference/relu.h"
#include "lib/kernels/relu.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using testing::expect_bitwise_equal;
using testing::nans;
using testing::random_floats;

using testing::kElementwiseSizes;

TEST(ReLUKernel, ForwardAndBackwardMatchReference) {
  for (int64_t n : kElementwiseSizes) {
    SCOPED_TRACE(n);
    const std::vector<float> x = random_floats(n, 1), dy = random_floats(n, 2);
    std::vector<float> y = nans(n), y_ref = nans(n), dx = nans(n), dx_ref = nans(n);
    kernels::relu_forward({n, 1}, x.data(), y.data(), Exec{});
    kernels::reference::relu_forward(n, x.data(), y_ref.data());
    EXPECT_EQ(y, y_ref);
    kernels::relu_backward({n, 1}, y.data(), dy.data(), dx.data(), Exec{});
    kernels::reference::relu_backward(n, y_ref.data(), dy.data(), dx_ref.data());
    EXPECT_EQ(dx, dx_ref);
  }
}

// max(x, 0) with the gradient cut where the output is not positive, zero included.
TEST(ReLUKernel, HandExample) {
  const std::vector<float> x = {-2.0f, -0.0f, 0.0f, 1e-30f, 3.5f};
  std::vector<float> y = nans(5), dx = nans(5);
  kernels::relu_forward({5, 1}, x.data(), y.data(), Exec{});
  EXPECT_EQ(y, (std::vector<float>{0.0f, 0.0f, 0.0f, 1e-30f, 3.5f}));
  const std::vector<float> dy = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
  kernels::relu_backward({5, 1}, y.data(), dy.data(), dx.data(), Exec{});
  EXPECT_EQ(dx, (std::vector<float>{0.0f, 0.0f, 0.0f, 4.0f, 5.0f}));
}

// y may alias x and dx may alias dy (the layer runs in place).
TEST(ReLUKernel, InPlace) {
  const int64_t n = 3 * 5 * 7 * 13;
  const std::vector<float> x = random_floats(n, 3), dy = random_floats(n, 4);
  std::vector<float> y(n), dx(n);
  kernels::relu_forward({n, 1}, x.data(), y.data(), Exec{});
  kernels::relu_backward({n, 1}, y.data(), dy.data(), dx.data(), Exec{});

  std::vector<float> in_place = x;
  kernels::relu_forward({n, 1}, in_place.data(), in_place.data(), Exec{});
  EXPECT_EQ(in_place, y);
  std::vector<float> grad_in_place = dy;
  kernels::relu_backward({n, 1}, y.data(), grad_in_place.data(), grad_in_place.data(), Exec{});
  EXPECT_EQ(grad_in_place, dx);
}

TEST(ReLUKernel, OneAndTwoThreadsAreBitwiseEqual) {
  testing::PoolExec two(2);
  const int64_t n = 56 * 56 * 256 + 1;
  const std::vector<float> x = random_floats(n, 5), dy = random_floats(n, 6);
  std::vector<float> y1(n), y2(n), dx1(n), dx2(n);
  kernels::relu_forward({n, 1}, x.data(), y1.data(), Exec{});
  kernels::relu_forward({n, 1}, x.data(), y2.data(), two.exec());
  expect_bitwise_equal(y1, y2, "y");
  kernels::relu_backward({n, 1}, y1.data(), dy.data(), dx1.data(), Exec{});
  kernels::relu_backward({n, 1}, y1.data(), dy.data(), dx2.data(), two.exec());
  expect_bitwise_equal(dx1, dx2, "dx");
}

}  // namespace
}  // namespace xtrain
