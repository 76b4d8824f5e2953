// StochasticDepth kernels: the mask pinned to values computed independently (Python integers, the
// arithmetic scripts/make_golden.py replays xtrain's masks with), the twin, the kept fraction,
// whole samples kept or dropped, bfloat16 storage and 1 vs 2 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "lib/kernels/dropout.h"
#include "lib/kernels/reference/stochastic_depth.h"
#include "lib/kernels/stochastic_depth.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using kernels::StochasticDepthShape;
using testing::expect_bitwise_equal;

// The golden test's first step key and efficientnet_b0's features.2.1 (block 3 of 16, p = 0.2 *
// 3 / 16 in double): keeps 11111111111011111101011111111111 of the step's first 32 samples, on
// whichever cores they are; a kept sample is multiplied by float32(1) / float32(1 - p), as
// torch's noise.div_(survival_rate).
TEST(StochasticDepthKernel, MaskAndScaleArePinned) {
  const double p = 0.2 * 3.0 / 16.0;
  const StochasticDepthShape s{
      32, 1, p, kernels::dropout_layer_key(0x5EED0001u, "features.2.1.stochastic_depth")};
  EXPECT_EQ(s.key, 0x84DD2165u);
  const char* expected = "11111111111011111101011111111111";
  for (int n = 0; n < 32; ++n) {
    EXPECT_EQ(kernels::stochastic_depth_keeps(s, n), expected[n] == '1') << n;
  }
  EXPECT_EQ(kernels::stochastic_depth_scale(p), 1.0389610528945923f);
  // The second core's 16 of the same 32 samples: sample n is the batch's 16 + n.
  StochasticDepthShape second = s;
  second.samples = 16;
  second.first_sample = 16;
  for (int n = 0; n < 16; ++n) {
    EXPECT_EQ(kernels::stochastic_depth_keeps(second, n), expected[16 + n] == '1') << n;
  }
}

// Every sample's row is kept and scaled, or zeroed, whole; the backward uses the same mask; NaN
// stays NaN; the fraction kept is 1 - p.
TEST(StochasticDepthKernel, MatchesReferenceAndDropsWholeSamples) {
  testing::PoolExec two(2);
  const int64_t samples = 20001, row = 3 * 5 * 7;
  const int64_t n = samples * row;
  for (const double p : {0.0, 0.0125, 0.2, 0.5}) {
    SCOPED_TRACE(p);
    const StochasticDepthShape s{
        samples, row, p, kernels::dropout_layer_key(kernels::dropout_step_key(1, 3, 0), "sd")};
    std::vector<float> x = testing::random_floats(n, 5);
    x[7] = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> dy = testing::random_floats(n, 6);
    std::vector<float> y1(n), y2(n), ref(n), dx(n), ref_dx(n);
    kernels::stochastic_depth_forward(s, x.data(), y1.data(), Exec{});
    kernels::stochastic_depth_forward(s, x.data(), y2.data(), two.exec());
    kernels::reference::stochastic_depth_forward(s, x.data(), ref.data());
    expect_bitwise_equal(y1, ref, "y, one thread");
    expect_bitwise_equal(y2, ref, "y, two threads");
    kernels::stochastic_depth_backward(s, dy.data(), dx.data(), two.exec());
    kernels::reference::stochastic_depth_backward(s, dy.data(), ref_dx.data());
    expect_bitwise_equal(dx, ref_dx, "dx");
    const float scale = kernels::stochastic_depth_scale(p);
    int64_t kept = 0;
    for (int64_t sample = 0; sample < samples; ++sample) {
      const bool keeps = kernels::stochastic_depth_keeps(s, sample);
      kept += keeps;
      for (int64_t j = 0; j < row; ++j) {
        const int64_t i = sample * row + j;
        if (i == 7) continue;
        ASSERT_EQ(y1[i], x[i] * (keeps ? scale : 0.0f)) << sample << " " << j;
      }
    }
    EXPECT_TRUE(std::isnan(y1[7]));  // NaN * 0 is NaN, as torch's input * noise
    // Binomial(samples, 1 - p): 5 standard deviations are under 1.8% of the samples.
    EXPECT_NEAR(double(kept) / samples, 1.0 - p, 0.018);
    if (p == 0.0) {
      EXPECT_EQ(kept, samples);
    }
  }
}

// From bfloat16 x and dy into bfloat16 y and dx: the float32 kernels' results on the same values,
// rounded once as they are stored.
TEST(StochasticDepthKernel, BFloat16GivesTheFloat32KernelsBitsRounded) {
  const int64_t samples = 64, row = 5 * 7 * 3;
  const int64_t n = samples * row;
  const StochasticDepthShape s{samples, row, 0.3, kernels::dropout_layer_key(7, "sd")};
  const std::vector<float> x = testing::rounded_to_bfloat16(testing::random_floats(n, 1));
  std::vector<float> y(n), dx(n);
  kernels::stochastic_depth_forward(s, x.data(), y.data(), Exec{});
  kernels::stochastic_depth_backward(s, x.data(), dx.data(), Exec{});
  const std::vector<BFloat16> x_b = testing::to_bfloat16s(x);
  std::vector<BFloat16> y_b(n), dx_b(n);
  kernels::stochastic_depth_forward(s, x_b.data(), y_b.data(), Exec{});
  kernels::stochastic_depth_backward(s, x_b.data(), dx_b.data(), Exec{});
  expect_bitwise_equal(testing::to_floats(y_b), testing::rounded_to_bfloat16(y), "y");
  expect_bitwise_equal(testing::to_floats(dx_b), testing::rounded_to_bfloat16(dx), "dx");
}

}  // namespace
}  // namespace xtrain
