// The element-wise activation kernels (activations.h): against their reference twin over values
// on both sides of every kink and through every bend, torch's values (and at the kinks its
// gradients), in place, bfloat16 storage giving the float32 kernels' bits rounded once (from a
// float32 dy too), and 1 vs 2 threads bitwise.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "lib/kernels/activations.h"
#include "lib/kernels/reference/activations.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using kernels::Activation;
using testing::expect_bitwise_equal;
using testing::expect_close_to_reference;
using testing::kElementwiseSizes;
using testing::nans;
using testing::random_floats;
using testing::rounded_to_bfloat16;
using testing::to_bfloat16s;
using testing::to_floats;

// Each activation with the inputs that reach all of it and how far from the exact values its
// float32 formula may land.
struct Case {
  Activation kind;
  const char* name;
  float lo, hi;  // inputs drawn from [lo, hi)
  float rtol;
};
const Case kCases[] = {
    {Activation::kNone, "identity", -12.0f, 12.0f, 0.0f},
    {Activation::kReLU, "relu", -12.0f, 12.0f, 0.0f},
    {Activation::kReLU6, "relu6", -12.0f, 12.0f, 0.0f},
    // [-5, 5): every piece of the piecewise-linear ones; a rounding or two of the arithmetic.
    {Activation::kHardswish, "hardswish", -5.0f, 5.0f, 1e-6f},
    {Activation::kHardsigmoid, "hardsigmoid", -5.0f, 5.0f, 1e-6f},
    // [-12, 12): the tails and the bend; a few float32 roundings (exp, the sum, the division).
    {Activation::kSiLU, "silu", -12.0f, 12.0f, 1e-5f},
    {Activation::kSigmoid, "sigmoid", -12.0f, 12.0f, 1e-5f},
    // [-6, 6): the flat tail, the dip below zero and the near-identity side; erf and exp within
    // about an ulp (vector_math.h), then a rounding or two.
    {Activation::kGELU, "gelu", -6.0f, 6.0f, 1e-6f},
};

std::vector<float> inputs(const Case& c, int64_t n, uint32_t seed) {
  return random_floats(n, seed, c.lo, c.hi);
}

TEST(ActivationsKernel, ForwardAndBackwardMatchReference) {
  for (const Case& c : kCases) {
    for (int64_t n : kElementwiseSizes) {
      SCOPED_TRACE(std::string(c.name) + " n=" + std::to_string(n));
      const std::vector<float> x = inputs(c, n, 1), dy = random_floats(n, 2);
      std::vector<float> y = nans(n), y_ref = nans(n), dx = nans(n), dx_ref = nans(n);
      kernels::activation_forward(c.kind, n, x.data(), y.data(), Exec{});
      kernels::reference::activation_forward(c.kind, n, x.data(), y_ref.data());
      expect_close_to_reference(y, y_ref, c.rtol, "y");
      kernels::activation_backward(c.kind, n, x.data(), dy.data(), dx.data(), Exec{});
      kernels::reference::activation_backward(c.kind, n, x.data(), dy.data(), dx_ref.data());
      expect_close_to_reference(dx, dx_ref, c.rtol, "dx");
    }
  }
}

// torch 1.13's values at and around the kinks (F.hardswish, F.hardsigmoid and their backward
// with dy = 1 on a tensor of 64 elements, all in its vectorized loop): hardswish's gradient is
// the derivative from the right at -3 and at 3; hardsigmoid's is 0 at both.
TEST(ActivationsKernel, TorchsHardValuesAndGradientsAtTheKinks) {
  const std::vector<float> x = {-3.5f, -3.0f, -2.0f, 0.0f, 2.5f, 3.0f, 3.5f};
  const int64_t n = static_cast<int64_t>(x.size());
  const std::vector<float> dy(n, 1.0f);
  std::vector<float> y = nans(n), dx = nans(n);
  kernels::activation_forward(Activation::kHardswish, n, x.data(), y.data(), Exec{});
  EXPECT_EQ(y,
            (std::vector<float>{0.0f, 0.0f, -2.0f / 6.0f, 0.0f, 2.5f * 5.5f / 6.0f, 3.0f, 3.5f}));
  kernels::activation_backward(Activation::kHardswish, n, x.data(), dy.data(), dx.data(), Exec{});
  EXPECT_EQ(dx, (std::vector<float>{0.0f, -0.5f, -2.0f / 3.0f + 0.5f, 0.5f, 2.5f / 3.0f + 0.5f,
                                    1.0f, 1.0f}));
  kernels::activation_forward(Activation::kHardsigmoid, n, x.data(), y.data(), Exec{});
  EXPECT_EQ(y, (std::vector<float>{0.0f, 0.0f, 1.0f / 6.0f, 0.5f, 5.5f / 6.0f, 1.0f, 1.0f}));
  kernels::activation_backward(Activation::kHardsigmoid, n, x.data(), dy.data(), dx.data(), Exec{});
  const float sixth = 1.0f / 6.0f;
  EXPECT_EQ(dx, (std::vector<float>{0.0f, 0.0f, sixth, sixth, sixth, 0.0f, 0.0f}));
}

// torch 1.13's values (F.silu, torch.sigmoid and their backward with dy = 1), within a float32
// rounding or two; far below -88 exp(-x) is infinite and both give 0 (silu -0), not NaN.
TEST(ActivationsKernel, TorchsSmoothValues) {
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
  kernels::activation_forward(Activation::kSiLU, n, x.data(), y.data(), Exec{});
  expect_near(y, {-0.0f, -0.23840584f, 0.0f, 0.7310586f, 30.0f}, "silu");
  kernels::activation_backward(Activation::kSiLU, n, x.data(), dy.data(), dx.data(), Exec{});
  expect_near(dx, {0.0f, -0.09078425f, 0.5f, 0.92767054f, 1.0f}, "silu'");
  kernels::activation_forward(Activation::kSigmoid, n, x.data(), y.data(), Exec{});
  expect_near(y, {0.0f, 0.11920292f, 0.5f, 0.7310586f, 1.0f}, "sigmoid");
  kernels::activation_backward(Activation::kSigmoid, n, x.data(), dy.data(), dx.data(), Exec{});
  expect_near(dx, {0.0f, 0.10499359f, 0.25f, 0.19661193f, 0.0f}, "sigmoid'");
}

// torch 1.13's F.gelu and its backward with dy = 1 (a tensor of 64 elements, all in its
// vectorized loop, whose erf is its own approximation: equal within a few ulps, not bitwise).
TEST(ActivationsKernel, TorchsGELUValuesAndGradients) {
  const std::vector<float> x = {-4.0f, -1.5f, -0.5f, 0.0f, 0.25f, 1.0f, 3.0f};
  const int64_t n = static_cast<int64_t>(x.size());
  const std::vector<float> dy(n, 1.0f);
  std::vector<float> y = nans(n), dx = nans(n);
  kernels::activation_forward(Activation::kGELU, n, x.data(), y.data(), Exec{});
  testing::expect_close(y,
                        {-0.00012671947479248047f, -0.10021086037158966f, -0.1542687863111496f,
                         0.0f, 0.14967656135559082f, 0.8413447141647339f, 2.995950222015381f},
                        1e-5f, 1e-8f, "y");
  kernels::activation_backward(Activation::kGELU, n, x.data(), dy.data(), dx.data(), Exec{});
  testing::expect_close(dx,
                        {-0.0005036294460296631f, -0.12746915221214294f, 0.1325049102306366f, 0.5f,
                         0.6953732967376709f, 1.083315372467041f, 1.0119456052780151f},
                        1e-5f, 1e-8f, "dx");
}

// y may alias x and dx may alias dy.
TEST(ActivationsKernel, InPlace) {
  const int64_t n = 3 * 5 * 7 * 13;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const std::vector<float> x = inputs(c, n, 3), dy = random_floats(n, 4);
    std::vector<float> y(n), dx(n);
    kernels::activation_forward(c.kind, n, x.data(), y.data(), Exec{});
    kernels::activation_backward(c.kind, n, x.data(), dy.data(), dx.data(), Exec{});
    std::vector<float> in_place = x, grad_in_place = dy;
    kernels::activation_forward(c.kind, n, in_place.data(), in_place.data(), Exec{});
    EXPECT_EQ(in_place, y);
    kernels::activation_backward(c.kind, n, x.data(), grad_in_place.data(), grad_in_place.data(),
                                 Exec{});
    EXPECT_EQ(grad_in_place, dx);
  }
}

// From bfloat16 x and dy into bfloat16 y and dx: the float32 kernels' results on the same
// (exactly representable) values, rounded once as they are stored; and from a float32 dy into a
// bfloat16 dx (x stored in bfloat16, y not).
TEST(ActivationsKernel, BFloat16GivesTheFloat32KernelsBitsRounded) {
  const int64_t n = 3 * 5 * 7 * 13;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const std::vector<float> x = rounded_to_bfloat16(inputs(c, n, 5)),
                             dy = rounded_to_bfloat16(random_floats(n, 6));
    const std::vector<BFloat16> x_b = to_bfloat16s(x), dy_b = to_bfloat16s(dy);
    std::vector<float> y = nans(n), dx = nans(n);
    kernels::activation_forward(c.kind, n, x.data(), y.data(), Exec{});
    kernels::activation_backward(c.kind, n, x.data(), dy.data(), dx.data(), Exec{});
    std::vector<BFloat16> y_b = to_bfloat16s(nans(n)), dx_b = to_bfloat16s(nans(n));
    kernels::activation_forward(c.kind, n, x_b.data(), y_b.data(), Exec{});
    kernels::activation_backward(c.kind, n, x_b.data(), dy_b.data(), dx_b.data(), Exec{});
    expect_bitwise_equal(to_floats(y_b), rounded_to_bfloat16(y), "y");
    expect_bitwise_equal(to_floats(dx_b), rounded_to_bfloat16(dx), "dx");
    std::vector<BFloat16> dx_mixed = to_bfloat16s(nans(n));
    kernels::activation_backward(c.kind, n, x_b.data(), dy.data(), dx_mixed.data(), Exec{});
    expect_bitwise_equal(to_floats(dx_mixed), rounded_to_bfloat16(dx), "dx from a float32 dy");
  }
}

TEST(ActivationsKernel, OneAndTwoThreadsAreBitwiseEqual) {
  testing::PoolExec two(2);
  const int64_t n = 56 * 56 * 96 + 1;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const std::vector<float> x = inputs(c, n, 7), dy = random_floats(n, 8);
    std::vector<float> y1(n), y2(n), dx1(n), dx2(n);
    kernels::activation_forward(c.kind, n, x.data(), y1.data(), Exec{});
    kernels::activation_forward(c.kind, n, x.data(), y2.data(), two.exec());
    expect_bitwise_equal(y1, y2, "y");
    kernels::activation_backward(c.kind, n, x.data(), dy.data(), dx1.data(), Exec{});
    kernels::activation_backward(c.kind, n, x.data(), dy.data(), dx2.data(), two.exec());
    expect_bitwise_equal(dx1, dx2, "dx");
  }
}

}  // namespace
}  // namespace xtrain
