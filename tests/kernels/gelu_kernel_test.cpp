// GELU kernels: against their reference twin, torch's values and gradients at a few points, in
// place, bfloat16 storage giving the float32 kernels' bits rounded once, and 1 vs 2 threads
// bitwise.
#include <gtest/gtest.h>

#include <vector>

#include "lib/kernels/gelu.h"
#include "lib/kernels/reference/gelu.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using testing::expect_bitwise_equal;
using testing::expect_close_to_reference;
using testing::kElementwiseSizes;
using testing::nans;
using testing::random_floats;
using testing::rounded_to_bfloat16;
using testing::to_bfloat16s;
using testing::to_floats;

// float32 erf and exp against the double reference: a few ulps of the largest value.
constexpr float kRtol = 1e-6f;

// x in [-5, 5): the tail where GELU is near 0, the bend around 0 and the near-identity side.
std::vector<float> inputs(int64_t n, uint32_t seed) { return random_floats(n, seed, -5.0f, 5.0f); }

TEST(GeluKernel, ForwardAndBackwardMatchReference) {
  for (int64_t n : kElementwiseSizes) {
    SCOPED_TRACE(n);
    const std::vector<float> x = inputs(n, 1), dy = random_floats(n, 2);
    std::vector<float> y = nans(n), y_ref = nans(n), dx = nans(n), dx_ref = nans(n);
    kernels::gelu_forward(n, x.data(), y.data(), Exec{});
    kernels::reference::gelu_forward(n, x.data(), y_ref.data());
    expect_close_to_reference(y, y_ref, kRtol, "gelu y");
    kernels::gelu_backward(n, x.data(), dy.data(), dx.data(), Exec{});
    kernels::reference::gelu_backward(n, x.data(), dy.data(), dx_ref.data());
    expect_close_to_reference(dx, dx_ref, kRtol, "gelu dx");
  }
}

// torch 1.13's F.gelu and its backward with dy = 1 (a tensor of 64 elements, all in its
// vectorized loop, whose erf is its own approximation: equal within a few ulps, not bitwise).
TEST(GeluKernel, TorchsValuesAndGradients) {
  const std::vector<float> x = {-4.0f, -1.5f, -0.5f, 0.0f, 0.25f, 1.0f, 3.0f};
  const int64_t n = static_cast<int64_t>(x.size());
  const std::vector<float> dy(n, 1.0f);
  std::vector<float> y = nans(n), dx = nans(n);
  kernels::gelu_forward(n, x.data(), y.data(), Exec{});
  testing::expect_close(y,
                        {-0.00012671947479248047f, -0.10021086037158966f, -0.1542687863111496f,
                         0.0f, 0.14967656135559082f, 0.8413447141647339f, 2.995950222015381f},
                        1e-5f, 1e-8f, "y");
  kernels::gelu_backward(n, x.data(), dy.data(), dx.data(), Exec{});
  testing::expect_close(dx,
                        {-0.0005036294460296631f, -0.12746915221214294f, 0.1325049102306366f, 0.5f,
                         0.6953732967376709f, 1.083315372467041f, 1.0119456052780151f},
                        1e-5f, 1e-8f, "dx");
}

// y may alias x and dx may alias dy.
TEST(GeluKernel, InPlace) {
  const int64_t n = 3 * 5 * 7 * 13;
  const std::vector<float> x = inputs(n, 3), dy = random_floats(n, 4);
  std::vector<float> y(n), dx(n);
  kernels::gelu_forward(n, x.data(), y.data(), Exec{});
  kernels::gelu_backward(n, x.data(), dy.data(), dx.data(), Exec{});
  std::vector<float> in_place = x, grad_in_place = dy;
  kernels::gelu_forward(n, in_place.data(), in_place.data(), Exec{});
  EXPECT_EQ(in_place, y);
  kernels::gelu_backward(n, x.data(), grad_in_place.data(), grad_in_place.data(), Exec{});
  EXPECT_EQ(grad_in_place, dx);
}

// From bfloat16 x and dy into bfloat16 y and dx: the float32 kernels' results on the same
// (exactly representable) values, rounded once as they are stored; and a float32 dy into a
// bfloat16 dx (x stored in bfloat16, y not).
TEST(GeluKernel, BFloat16GivesTheFloat32KernelsBitsRounded) {
  const int64_t n = 3 * 5 * 7 * 13;
  const std::vector<float> x = rounded_to_bfloat16(inputs(n, 5)),
                           dy = rounded_to_bfloat16(random_floats(n, 6));
  const std::vector<BFloat16> x_b = to_bfloat16s(x), dy_b = to_bfloat16s(dy);
  std::vector<float> y = nans(n), dx = nans(n);
  kernels::gelu_forward(n, x.data(), y.data(), Exec{});
  kernels::gelu_backward(n, x.data(), dy.data(), dx.data(), Exec{});
  std::vector<BFloat16> y_b = to_bfloat16s(nans(n)), dx_b = to_bfloat16s(nans(n));
  kernels::gelu_forward(n, x_b.data(), y_b.data(), Exec{});
  kernels::gelu_backward(n, x_b.data(), dy_b.data(), dx_b.data(), Exec{});
  expect_bitwise_equal(to_floats(y_b), rounded_to_bfloat16(y), "y");
  expect_bitwise_equal(to_floats(dx_b), rounded_to_bfloat16(dx), "dx");
  std::vector<BFloat16> dx_mixed = to_bfloat16s(nans(n));
  kernels::gelu_backward(n, x_b.data(), dy.data(), dx_mixed.data(), Exec{});
  expect_bitwise_equal(to_floats(dx_mixed), rounded_to_bfloat16(dx), "dx from a float32 dy");
}

TEST(GeluKernel, OneAndTwoThreadsAreBitwiseEqual) {
  testing::PoolExec two(2);
  const int64_t n = 56 * 56 * 96 + 1;
  const std::vector<float> x = inputs(n, 7), dy = random_floats(n, 8);
  std::vector<float> y1(n), y2(n), dx1(n), dx2(n);
  kernels::gelu_forward(n, x.data(), y1.data(), Exec{});
  kernels::gelu_forward(n, x.data(), y2.data(), two.exec());
  expect_bitwise_equal(y1, y2, "y");
  kernels::gelu_backward(n, x.data(), dy.data(), dx1.data(), Exec{});
  kernels::gelu_backward(n, x.data(), dy.data(), dx2.data(), two.exec());
  expect_bitwise_equal(dx1, dx2, "dx");
}

}  // namespace
}  // namespace xtrain
