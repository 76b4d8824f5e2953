// Dropout kernels: the mask's hash pinned to values computed independently (Python integers,
// the same arithmetic scripts/make_golden.py uses to replay xtrain's masks), the twin, threads.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "lib/kernels/dropout.h"
#include "lib/kernels/reference/dropout.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using kernels::DropoutShape;
using testing::expect_bitwise_equal;

TEST(DropoutKernel, HashesArePinned) {
  EXPECT_EQ(kernels::fmix32(0), 0u);
  EXPECT_EQ(kernels::fmix32(1), 0x514E28B7u);  // murmur3's published fmix32(1)
  EXPECT_EQ(kernels::fmix32(0xDEADBEEF), 0x0DE5C6A9u);
  EXPECT_EQ(kernels::fnv1a32(""), 0x811C9DC5u);  // FNV-1a's offset basis
  EXPECT_EQ(kernels::fnv1a32("classifier.2"), 0xA1644A34u);
  EXPECT_EQ(kernels::dropout_step_key(42, 0, 0), 0xB9DAC15Fu);
  EXPECT_EQ(kernels::dropout_step_key(42, 7, 1), 0x22DB5177u);
  // The golden test's first step key and VGG's first Dropout: keeps 0101100010100000.
  const DropoutShape s{16, 0.5f, kernels::dropout_layer_key(0x5EED0001u, "classifier.2")};
  EXPECT_EQ(s.key, 0xD15827AEu);
  const char* expected = "0101100010100000";
  for (int i = 0; i < 16; ++i) EXPECT_EQ(kernels::dropout_keeps(s, i), expected[i] == '1') << i;
}

// Kept elements are scaled by exactly 2 at p = 0.5, dropped ones are +-0; the backward uses the
// same mask; NaN stays NaN.
TEST(DropoutKernel, MatchesReferenceAndTorchsArithmetic) {
  testing::PoolExec two(2);
  const int64_t n = 300001;
  for (const float p : {0.0f, 0.1f, 0.5f}) {
    const DropoutShape s{n, p, kernels::dropout_layer_key(kernels::dropout_step_key(1, 3, 0), "x")};
    std::vector<float> x = testing::random_floats(n, 5);
    x[7] = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> dy = testing::random_floats(n, 6);
    std::vector<float> y1(n), y2(n), ref(n), dx(n), ref_dx(n);
    kernels::dropout_forward(s, x.data(), y1.data(), Exec{});
    kernels::dropout_forward(s, x.data(), y2.data(), two.exec());
    kernels::reference::dropout_forward(s, x.data(), ref.data());
    expect_bitwise_equal(y1, ref, "y, one thread");
    expect_bitwise_equal(y2, ref, "y, two threads");
    kernels::dropout_backward(s, dy.data(), dx.data(), two.exec());
    kernels::reference::dropout_backward(s, dy.data(), ref_dx.data());
    expect_bitwise_equal(dx, ref_dx, "dx");
    int64_t kept = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (i == 7) continue;
      if (kernels::dropout_keeps(s, i)) {
        ++kept;
        ASSERT_EQ(y1[i], x[i] * static_cast<float>(1.0 / (1.0 - p))) << i;
      } else {
        ASSERT_EQ(y1[i], 0.0f) << i;
      }
    }
    EXPECT_TRUE(std::isnan(y1[7]));  // NaN * 0 is NaN: dropped or kept, as torch's x * mask
    // Binomial(n, 1 - p): 5 standard deviations are under 0.5% of n.
    EXPECT_NEAR(double(kept) / (n - 1), 1.0 - p, 0.005) << "p " << p;
    if (p == 0.0f) EXPECT_EQ(kept, n - 1);
  }
}

}  // namespace
}  // namespace xtrain
