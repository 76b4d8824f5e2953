// Hardswish and Hardsigmoid kernels: against their reference twin over values on both sides of
// both kinks, torch's values and gradients at the kinks themselves, in place, bfloat16 storage
// giving the float32 kernels' bits rounded once, and 1 vs 2 threads bitwise.
#include <gtest/gtest.h>

#include <vector>

#include "lib/kernels/hard_activations.h"
#include "lib/kernels/reference/hard_activations.h"
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

constexpr float kRtol = 1e-6f;

// x in [-5, 5): every piece of either function.
std::vector<float> inputs(int64_t n, uint32_t seed) { return random_floats(n, seed, -5.0f, 5.0f); }

TEST(HardActivationsKernel, ForwardAndBackwardMatchReference) {
  for (int64_t n : kElementwiseSizes) {
    SCOPED_TRACE(n);
    const std::vector<float> x = inputs(n, 1), dy = random_floats(n, 2);
    std::vector<float> y = nans(n), y_ref = nans(n), dx = nans(n), dx_ref = nans(n);
    kernels::hardswish_forward(n, x.data(), y.data(), Exec{});
    kernels::reference::hardswish_forward(n, x.data(), y_ref.data());
    expect_close_to_reference(y, y_ref, kRtol, "hardswish y");
    kernels::hardswish_backward(n, x.data(), dy.data(), dx.data(), Exec{});
    kernels::reference::hardswish_backward(n, x.data(), dy.data(), dx_ref.data());
    expect_close_to_reference(dx, dx_ref, kRtol, "hardswish dx");
    kernels::hardsigmoid_forward(n, x.data(), y.data(), Exec{});
    kernels::reference::hardsigmoid_forward(n, x.data(), y_ref.data());
    expect_close_to_reference(y, y_ref, kRtol, "hardsigmoid y");
    kernels::hardsigmoid_backward(n, x.data(), dy.data(), dx.data(), Exec{});
    kernels::reference::hardsigmoid_backward(n, x.data(), dy.data(), dx_ref.data());
    expect_close_to_reference(dx, dx_ref, kRtol, "hardsigmoid dx");
  }
}

// torch 1.13's values at and around the kinks (F.hardswish, F.hardsigmoid and their backward
// with dy = 1 on a tensor of 64 elements, all in its vectorized loop): hardswish's gradient is
// the derivative from the right at -3 and at 3; hardsigmoid's is 0 at both.
TEST(HardActivationsKernel, TorchsValuesAndGradientsAtTheKinks) {
  const std::vector<float> x = {-3.5f, -3.0f, -2.0f, 0.0f, 2.5f, 3.0f, 3.5f};
  const int64_t n = static_cast<int64_t>(x.size());
  const std::vector<float> dy(n, 1.0f);
  std::vector<float> y = nans(n), dx = nans(n);
  kernels::hardswish_forward(n, x.data(), y.data(), Exec{});
  EXPECT_EQ(y,
            (std::vector<float>{0.0f, 0.0f, -2.0f / 6.0f, 0.0f, 2.5f * 5.5f / 6.0f, 3.0f, 3.5f}));
  kernels::hardswish_backward(n, x.data(), dy.data(), dx.data(), Exec{});
  EXPECT_EQ(dx, (std::vector<float>{0.0f, -0.5f, -2.0f / 3.0f + 0.5f, 0.5f, 2.5f / 3.0f + 0.5f,
                                    1.0f, 1.0f}));
  kernels::hardsigmoid_forward(n, x.data(), y.data(), Exec{});
  EXPECT_EQ(y, (std::vector<float>{0.0f, 0.0f, 1.0f / 6.0f, 0.5f, 5.5f / 6.0f, 1.0f, 1.0f}));
  kernels::hardsigmoid_backward(n, x.data(), dy.data(), dx.data(), Exec{});
  const float sixth = 1.0f / 6.0f;
  EXPECT_EQ(dx, (std::vector<float>{0.0f, 0.0f, sixth, sixth, sixth, 0.0f, 0.0f}));
}

// y may alias x and dx may alias dy.
TEST(HardActivationsKernel, InPlace) {
  const int64_t n = 3 * 5 * 7 * 13;
  const std::vector<float> x = inputs(n, 3), dy = random_floats(n, 4);
  std::vector<float> y(n), dx(n);
  kernels::hardswish_forward(n, x.data(), y.data(), Exec{});
  kernels::hardswish_backward(n, x.data(), dy.data(), dx.data(), Exec{});
  std::vector<float> in_place = x, grad_in_place = dy;
  kernels::hardswish_forward(n, in_place.data(), in_place.data(), Exec{});
  EXPECT_EQ(in_place, y);
  kernels::hardswish_backward(n, x.data(), grad_in_place.data(), grad_in_place.data(), Exec{});
  EXPECT_EQ(grad_in_place, dx);
}

// From bfloat16 x and dy into bfloat16 y and dx: the float32 kernels' results on the same
// (exactly representable) values, rounded once as they are stored.
TEST(HardActivationsKernel, BFloat16GivesTheFloat32KernelsBitsRounded) {
  const int64_t n = 3 * 5 * 7 * 13;
  const std::vector<float> x = rounded_to_bfloat16(inputs(n, 5)),
                           dy = rounded_to_bfloat16(random_floats(n, 6));
  const std::vector<BFloat16> x_b = to_bfloat16s(x), dy_b = to_bfloat16s(dy);
  using Forward = void (*)(int64_t, ConstElements, Elements, const Exec&);
  using Backward = void (*)(int64_t, ConstElements, ConstElements, Elements, const Exec&);
  const std::pair<Forward, Backward> passes[] = {
      {kernels::hardswish_forward, kernels::hardswish_backward},
      {kernels::hardsigmoid_forward, kernels::hardsigmoid_backward}};
  for (const auto& [forward, backward] : passes) {
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

TEST(HardActivationsKernel, OneAndTwoThreadsAreBitwiseEqual) {
  testing::PoolExec two(2);
  const int64_t n = 56 * 56 * 256 + 1;
  const std::vector<float> x = inputs(n, 7), dy = random_floats(n, 8);
  std::vector<float> y1(n), y2(n), dx1(n), dx2(n);
  kernels::hardswish_forward(n, x.data(), y1.data(), Exec{});
  kernels::hardswish_forward(n, x.data(), y2.data(), two.exec());
  expect_bitwise_equal(y1, y2, "hardswish y");
  kernels::hardswish_backward(n, x.data(), dy.data(), dx1.data(), Exec{});
  kernels::hardswish_backward(n, x.data(), dy.data(), dx2.data(), two.exec());
  expect_bitwise_equal(dx1, dx2, "hardswish dx");
  kernels::hardsigmoid_forward(n, x.data(), y1.data(), Exec{});
  kernels::hardsigmoid_forward(n, x.data(), y2.data(), two.exec());
  expect_bitwise_equal(y1, y2, "hardsigmoid y");
  kernels::hardsigmoid_backward(n, x.data(), dy.data(), dx1.data(), Exec{});
  kernels::hardsigmoid_backward(n, x.data(), dy.data(), dx2.data(), two.exec());
  expect_bitwise_equal(dx1, dx2, "hardsigmoid dx");
}

}  // namespace
}  // namespace xtrain
