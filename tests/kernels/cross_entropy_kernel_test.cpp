// CrossEntropyLoss kernels: hand-computed losses, numerical safety with huge logits, label
// smoothing, bad labels, and the reference twin.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/base/check.h"
#include "lib/kernels/cross_entropy.h"
#include "lib/kernels/reference/cross_entropy.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using kernels::CrossEntropyShape;
using testing::expect_bitwise_equal;
using testing::expect_close_to_reference;
using testing::nans;
using testing::random_floats;

constexpr float kRtol = 1e-4f;

// Equal logits: softmax is uniform and the loss is log(K) whatever the label; the gradient is
// (1/K - onehot) / N.
TEST(CrossEntropyKernel, EqualLogitsGiveLogK) {
  const CrossEntropyShape s{2, 3, 0.0f};
  const std::vector<float> logits = {0.5f, 0.5f, 0.5f, -7.0f, -7.0f, -7.0f};
  const std::vector<int32_t> labels = {0, 2};
  std::vector<float> probs = nans(6), dlogits = nans(6);
  const float loss =
      kernels::cross_entropy_forward(s, logits.data(), labels.data(), probs.data(), Exec{});
  EXPECT_NEAR(loss, std::log(3.0), 1e-6);
  for (float p : probs) EXPECT_NEAR(p, 1.0 / 3.0, 1e-7);
  kernels::cross_entropy_backward(s, probs.data(), labels.data(), dlogits.data(), Exec{});
  const std::vector<double> expected = {(1.0 / 3 - 1) / 2, 1.0 / 6, 1.0 / 6,
                                        1.0 / 6,           1.0 / 6, (1.0 / 3 - 1) / 2};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(dlogits[i], expected[i], 1e-7) << i;
}

// Logits of +-1e4 overflow exp() without the max subtraction. The loss is still exact:
// lse = 1e4, so the loss is 1e4 - z[label].
TEST(CrossEntropyKernel, HugeLogitsStayFinite) {
  const CrossEntropyShape s{2, 3, 0.0f};
  const std::vector<float> logits = {1e4f, -1e4f, 0.0f, -1e4f, -1e4f, 1e4f};
  const std::vector<int32_t> labels = {1, 2};  // a hopeless sample and a perfect one
  std::vector<float> probs = nans(6), dlogits = nans(6);
  const float loss =
      kernels::cross_entropy_forward(s, logits.data(), labels.data(), probs.data(), Exec{});
  ASSERT_TRUE(std::isfinite(loss));
  EXPECT_NEAR(loss, (2e4 + 0.0) / 2, 1e-2);
  kernels::cross_entropy_backward(s, probs.data(), labels.data(), dlogits.data(), Exec{});
  for (int i = 0; i < 6; ++i) {
    EXPECT_TRUE(std::isfinite(probs[i])) << i;
    EXPECT_TRUE(std::isfinite(dlogits[i])) << i;
  }
  EXPECT_EQ(probs[0], 1.0f);
  EXPECT_EQ(probs[5], 1.0f);
  EXPECT_NEAR(dlogits[0], 0.5, 1e-7);   // (1 - 0) / 2
  EXPECT_NEAR(dlogits[1], -0.5, 1e-7);  // (0 - 1) / 2
  EXPECT_NEAR(dlogits[5], 0.0, 1e-7);   // (1 - 1) / 2

  // With label smoothing too: q puts eps/K on every class, so the loss picks up
  // eps/K * (lse - z_k) summed over k.
  const CrossEntropyShape smooth{2, 3, 0.1f};
  const float smooth_loss =
      kernels::cross_entropy_forward(smooth, logits.data(), labels.data(), probs.data(), Exec{});
  ASSERT_TRUE(std::isfinite(smooth_loss));
  // sample 0: lse 1e4; sample 1: lse 1e4. -sum q (z - lse) per sample:
  const double s0 = 0.9 * 2e4 + 0.1 / 3 * (0 + 2e4 + 1e4);
  const double s1 = 0.9 * 0 + 0.1 / 3 * (2e4 + 2e4 + 0);
  EXPECT_NEAR(smooth_loss, (s0 + s1) / 2, 1e-1);
  kernels::cross_entropy_backward(smooth, probs.data(), labels.data(), dlogits.data(), Exec{});
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(std::isfinite(dlogits[i])) << i;
}

// K = 3, eps = 0.1, logits {1, 2, 3}, label 0: q = {0.9 + 0.1/3, 0.1/3, 0.1/3}.
// log_softmax = z - lse with lse = log(e + e^2 + e^3); loss = -sum q log_softmax = 2.3076060.
TEST(CrossEntropyKernel, LabelSmoothingHandExample) {
  const CrossEntropyShape s{1, 3, 0.1f};
  const std::vector<float> logits = {1.0f, 2.0f, 3.0f};
  const std::vector<int32_t> labels = {0};
  std::vector<float> probs = nans(3), dlogits = nans(3);
  const float loss =
      kernels::cross_entropy_forward(s, logits.data(), labels.data(), probs.data(), Exec{});
  const double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  const double q[3] = {0.9 + 0.1 / 3, 0.1 / 3, 0.1 / 3};
  double expected = 0.0;
  for (int k = 0; k < 3; ++k) expected -= q[k] * (logits[k] - lse);
  EXPECT_NEAR(expected, 2.3076059644, 1e-9);  // the formula, checked once by hand
  EXPECT_NEAR(loss, expected, 1e-6);
  kernels::cross_entropy_backward(s, probs.data(), labels.data(), dlogits.data(), Exec{});
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(probs[k], std::exp(logits[k] - lse), 1e-7) << k;
    EXPECT_NEAR(dlogits[k], std::exp(logits[k] - lse) - q[k], 1e-7) << k;
  }
  // Without smoothing the same logits cost lse - z[0].
  const CrossEntropyShape hard{1, 3, 0.0f};
  EXPECT_NEAR(
      kernels::cross_entropy_forward(hard, logits.data(), labels.data(), probs.data(), Exec{}),
      lse - 1.0, 1e-6);
}

// Labels outside [0, K) throw xtrain::Error from both passes, naming the sample.
TEST(CrossEntropyKernel, OutOfRangeLabelThrows) {
  const CrossEntropyShape s{2, 3, 0.0f};
  const std::vector<float> logits(6, 0.0f);
  std::vector<float> probs(6, 1.0f / 3), dlogits(6);
  for (int32_t bad : {3, -1, 1000}) {
    SCOPED_TRACE(bad);
    const std::vector<int32_t> labels = {0, bad};
    EXPECT_THROW(
        kernels::cross_entropy_forward(s, logits.data(), labels.data(), probs.data(), Exec{}),
        Error);
    EXPECT_THROW(
        kernels::cross_entropy_backward(s, probs.data(), labels.data(), dlogits.data(), Exec{}),
        Error);
  }
  const std::vector<int32_t> labels = {0, 3};
  try {
    kernels::cross_entropy_forward(s, logits.data(), labels.data(), probs.data(), Exec{});
    FAIL() << "no throw";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("label 3 of sample 1"), std::string::npos) << message;
  }
  // The edge of the range is fine.
  const std::vector<int32_t> last = {2, 0};
  EXPECT_NO_THROW(
      kernels::cross_entropy_forward(s, logits.data(), last.data(), probs.data(), Exec{}));
}

void expect_matches_reference(const CrossEntropyShape& s, float logit_scale) {
  SCOPED_TRACE("[N " + std::to_string(s.n) + ", K " + std::to_string(s.classes) + "] smoothing " +
               std::to_string(s.label_smoothing) + " mix " + std::to_string(s.mix));
  const size_t size = size_t(s.n) * s.classes;
  const std::vector<float> logits = random_floats(size, 1, -logit_scale, logit_scale);
  std::vector<int32_t> labels(s.n);
  for (int i = 0; i < s.n; ++i) labels[i] = (i * 7 + 3) % s.classes;
  std::vector<float> probs = nans(size), probs_ref = nans(size);
  const float loss =
      kernels::cross_entropy_forward(s, logits.data(), labels.data(), probs.data(), Exec{});
  const float loss_ref =
      kernels::reference::cross_entropy_forward(s, logits.data(), labels.data(), probs_ref.data());
  EXPECT_NEAR(loss, loss_ref, kRtol * std::fabs(loss_ref));
  expect_close_to_reference(probs, probs_ref, kRtol, "probs");
  std::vector<float> dlogits = nans(size), dlogits_ref = nans(size);
  kernels::cross_entropy_backward(s, probs.data(), labels.data(), dlogits.data(), Exec{});
  kernels::reference::cross_entropy_backward(s, probs.data(), labels.data(), dlogits_ref.data());
  expect_close_to_reference(dlogits, dlogits_ref, kRtol, "dlogits");
}

TEST(CrossEntropyKernel, MatchesReference) {
  for (float eps : {0.0f, 0.1f}) {
    expect_matches_reference(CrossEntropyShape{3, 13, eps}, 5.0f);
    expect_matches_reference(CrossEntropyShape{3, 3, eps}, 1.0f);
    expect_matches_reference(CrossEntropyShape{1, 1000, eps}, 10.0f);      // ImageNet, batch 1
    expect_matches_reference(CrossEntropyShape{37, 10, eps}, 100.0f);      // CIFAR, confident
    expect_matches_reference(CrossEntropyShape{37, 10, eps, 0.3f}, 5.0f);  // mixup, CutMix
    expect_matches_reference(CrossEntropyShape{1, 10, eps, 0.3f}, 5.0f);   // mixed with itself
  }
}

// Mixing with weight 1 is the hard-label loss, bit for bit; with weight 0 it is the loss of the
// labels rolled by one sample.
TEST(CrossEntropyKernel, MixEndsAreTheHardLosses) {
  const CrossEntropyShape hard{5, 13, 0.1f};
  const std::vector<float> logits = random_floats(65, 4, -3.0f, 3.0f);
  const std::vector<int32_t> labels = {0, 12, 5, 5, 7}, rolled = {7, 0, 12, 5, 5};
  std::vector<float> probs(65), dlogits(65), mixed_probs(65), mixed_dlogits(65);
  const float loss =
      kernels::cross_entropy_forward(hard, logits.data(), labels.data(), probs.data(), Exec{});
  kernels::cross_entropy_backward(hard, probs.data(), labels.data(), dlogits.data(), Exec{});
  CrossEntropyShape mixed = hard;
  mixed.mix = 1.0f;
  EXPECT_EQ(kernels::cross_entropy_forward(mixed, logits.data(), labels.data(), mixed_probs.data(),
                                           Exec{}),
            loss);
  kernels::cross_entropy_backward(mixed, probs.data(), labels.data(), mixed_dlogits.data(), Exec{});
  expect_bitwise_equal(mixed_dlogits, dlogits, "dlogits, mix 1");

  mixed.mix = 0.0f;
  const float rolled_loss =
      kernels::cross_entropy_forward(hard, logits.data(), rolled.data(), probs.data(), Exec{});
  kernels::cross_entropy_backward(hard, probs.data(), rolled.data(), dlogits.data(), Exec{});
  EXPECT_NEAR(kernels::cross_entropy_forward(mixed, logits.data(), labels.data(),
                                             mixed_probs.data(), Exec{}),
              rolled_loss, 1e-6);
  kernels::cross_entropy_backward(mixed, probs.data(), labels.data(), mixed_dlogits.data(), Exec{});
  testing::expect_close(mixed_dlogits, dlogits, 0.0f, 1e-8f, "dlogits, mix 0");
}

// Each row of the gradient sums to zero (probabilities and q both sum to one).
TEST(CrossEntropyKernel, GradientRowsSumToZero) {
  const CrossEntropyShape s{5, 13, 0.1f};
  const std::vector<float> logits = random_floats(65, 2, -3.0f, 3.0f);
  const std::vector<int32_t> labels = {0, 12, 5, 5, 7};
  std::vector<float> probs(65), dlogits(65);
  kernels::cross_entropy_forward(s, logits.data(), labels.data(), probs.data(), Exec{});
  kernels::cross_entropy_backward(s, probs.data(), labels.data(), dlogits.data(), Exec{});
  for (int i = 0; i < s.n; ++i) {
    double sum = 0.0;
    for (int k = 0; k < s.classes; ++k) sum += dlogits[i * s.classes + k];
    EXPECT_NEAR(sum, 0.0, 1e-7) << i;
  }
}

TEST(CrossEntropyKernel, OneAndTwoThreadsAreBitwiseEqual) {
  testing::PoolExec two(2);
  const CrossEntropyShape s{64, 1000, 0.1f};
  const std::vector<float> logits = random_floats(64000, 3, -5.0f, 5.0f);
  std::vector<int32_t> labels(64);
  for (int i = 0; i < 64; ++i) labels[i] = (i * 37) % 1000;
  std::vector<float> p1(64000), p2(64000), d1(64000), d2(64000);
  const float l1 =
      kernels::cross_entropy_forward(s, logits.data(), labels.data(), p1.data(), Exec{});
  const float l2 =
      kernels::cross_entropy_forward(s, logits.data(), labels.data(), p2.data(), two.exec());
  EXPECT_EQ(l1, l2);
  expect_bitwise_equal(p1, p2, "probs");
  kernels::cross_entropy_backward(s, p1.data(), labels.data(), d1.data(), Exec{});
  kernels::cross_entropy_backward(s, p1.data(), labels.data(), d2.data(), two.exec());
  expect_bitwise_equal(d1, d2, "dlogits");
}

}  // namespace
}  // namespace xtrain
