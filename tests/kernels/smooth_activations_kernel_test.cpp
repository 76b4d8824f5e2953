// SiLU and Sigmoid kernels: against their reference twin in double over values from the flat
// negative tail to the nearly linear part, torch's values at a few points, in place, bfloat16
// storage giving the float32 kernels' bits rounded once, and 1 vs 2 threads bitwise.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "lib/kernels/reference/smooth_activations.h"
#include "lib/kernels/smooth_activations.h"
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

// A few float32 roundings (exp, the sum, the division) away from the exact values.
constexpr float kRtol = 1e-5f;

// x in [-12, 12): the tails and the bend of both functions.
std::vector<float> inputs(int64_t n, uint32_t seed) {
  return random_floats(n, seed, -12.0f, 12.0f);
}

using Forward = void (*)(int64_t, ConstElements, Elements, const Exec&);
using Backward = void (*)(int64_t, ConstElements, ConstElements, Elements, const Exec&);
const std::pair<Forward, Backward> kPasses[] = {
    {kernels::silu_forward, kernels::silu_backward},
    {kernels::sigmoid_forward, kernels::sigmoid_backward}};

TEST(SmoothActivationsKernel, ForwardAndBackwardMatchReference) {
  for (int64_t n : kElementwiseSizes) {
    SCOPED_TRACE(n);
    const std::vector<float> x = inputs(n, 1), dy = random_floats(n, 2);
    std::vector<float> y = nans(n), y_ref = nans(n), dx = nans(n), dx_ref = nans(n);
    kernels::silu_forward(n, x.data(), y.data(), Exec{});
    kernels::reference::silu_forward(n, x.data(), y_ref.data());
    expect_close_to_reference(y, y_ref, kRtol, "silu y");
    kernels::silu_backward(n, x.data(), dy.data(), dx.data(), Exec{});
    kernels::reference::silu_backward(n, x.data(), dy.data(), dx_ref.data());
    expect_close_to_reference(dx, dx_ref, kRtol, "silu dx");
    kernels::sigmoid_forward(n, x.data(), y.data(), Exec{});
    kernels::reference::sigmoid_forward(n, x.data(), y_ref.data());
    expect_close_to_reference(y, y_ref, kRtol, "sigmoid y");
    kernels::sigmoid_backward(n, x.data(), dy.data(), dx.data(), Exec{});
    kernels::reference::sigmoid_backward(n, x.data(), dy.data(), dx_ref.data());
    expect_close_to_reference(dx, dx_ref, kRtol, "sigmoid dx");
  }
}

// torch 1.13's values (F.silu, torch.sigmoid and their backward with dy = 1), within a float32
// rounding or two; far below -88 exp(-x) is infinite and both give 0 (silu -0), not NaN.
TEST(SmoothActivationsKernel, TorchsValues) {
  const std::vector<float> x = {-100.0f, -2.0f, 0.0f, 1.0f, 30.0f};
  const int64_t n = static_cast<int64_t>(x.size());
  const std::vector<float> dy(n, 1.0f);
  std::vector<float> y = nans(n), dx = nans(n);
  const auto expect_near = [](const std::vector<float>& got, const std::vector<float>& want,
                              const char* what) {
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], 2e-7f + 2e-7f * std::abs(want[i])) << what << " at " << i;
    }
  };
  kernels::silu_forward(n, x.data(), y.data(), Exec{});
  expect_near(y, {-0.0f, -0.23840584f, 0.0f, 0.7310586f, 30.0f}, "silu");
  kernels::silu_backward(n, x.data(), dy.data(), dx.data(), Exec{});
  expect_near(dx, {0.0f, -0.09078425f, 0.5f, 0.92767054f, 1.0f}, "silu'");
  kernels::sigmoid_forward(n, x.data(), y.data(), Exec{});
  expect_near(y, {0.0f, 0.11920292f, 0.5f, 0.7310586f, 1.0f}, "sigmoid");
  kernels::sigmoid_backward(n, x.data(), dy.data(), dx.data(), Exec{});
  expect_near(dx, {0.0f, 0.10499359f, 0.25f, 0.19661193f, 0.0f}, "sigmoid'");
}

// y may alias x and dx may alias dy.
TEST(SmoothActivationsKernel, InPlace) {
  const int64_t n = 3 * 5 * 7 * 13;
  const std::vector<float> x = inputs(n, 3), dy = random_floats(n, 4);
  for (const auto& [forward, backward] : kPasses) {
    std::vector<float> y(n), dx(n);
    forward(n, x.data(), y.data(), Exec{});
    backward(n, x.data(), dy.data(), dx.data(), Exec{});
    std::vector<float> in_place = x, grad_in_place = dy;
    forward(n, in_place.data(), in_place.data(), Exec{});
    EXPECT_EQ(in_place, y);
    backward(n, x.data(), grad_in_place.data(), grad_in_place.data(), Exec{});
    EXPECT_EQ(grad_in_place, dx);
  }
}

// From bfloat16 x and dy into bfloat16 y and dx: the float32 kernels' results on the same
// (exactly representable) values, rounded once as they are stored.
TEST(SmoothActivationsKernel, BFloat16GivesTheFloat32KernelsBitsRounded) {
  const int64_t n = 3 * 5 * 7 * 13;
  const std::vector<float> x = rounded_to_bfloat16(inputs(n, 5)),
                           dy = rounded_to_bfloat16(random_floats(n, 6));
  const std::vector<BFloat16> x_b = to_bfloat16s(x), dy_b = to_bfloat16s(dy);
  for (const auto& [forward, backward] : kPasses) {
    std::vector<float> y = nans(n), dx = nans(n);
    forward(n, x.data(), y.data(), Exec{});
    backward(n, x.data(), dy.data(), dx.data(), Exec{});
    std::vector<BFloat16> y_b = to_bfloat16s(nans(n)), dx_b = to_bfloat16s(nans(n));
    forward(n, x_b.data(), y_b.data(), Exec{});
    backward(n, x_b.data(), dy_b.data(), dx_b.data(), Exec{});
    expect_bitwise_equal(to_floats(y_b), rounded_to_bfloat16(y), "y");
    expect_bitwise_equal(to_floats(dx_b), rounded_to_bfloat16(dx), "dx");
  }
}

TEST(SmoothActivationsKernel, OneAndTwoThreadsAreBitwiseEqual) {
  testing::PoolExec two(2);
  const int64_t n = 56 * 56 * 96 + 1;
  const std::vector<float> x = inputs(n, 7), dy = random_floats(n, 8);
  for (const auto& [forward, backward] : kPasses) {
    std::vector<float> y1(n), y2(n), dx1(n), dx2(n);
    forward(n, x.data(), y1.data(), Exec{});
    forward(n, x.data(), y2.data(), two.exec());
    expect_bitwise_equal(y1, y2, "y");
    backward(n, x.data(), dy.data(), dx1.data(), Exec{});
    backward(n, x.data(), dy.data(), dx2.data(), two.exec());
    expect_bitwise_equal(dx1, dx2, "dx");
  }
}

}  // namespace
}  // namespace xtrain
