// The draws of RandAugment, AutoAugment (IMAGENET) and AugMix, and AugMix's Gamma, Dirichlet and
// mixing: over many samples every operation, bin and depth appears about as often as
// torchvision's distributions say, sub-policies' steps apply with their probabilities, the
// Gamma and Dirichlet draws have their distributions' moments, the mixture truncates as torch's
// .to(uint8) does, and a policy's pixels are its draws applied in order, the same for the same
// Rng. The bounds are about five standard deviations of the counts: a correct generator passes
// them for any seed, and a missing or doubled operation, or a bin outside the range, fails them.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

#include "data/augment_magnitudes.h"
#include "data/augmix.h"
#include "data/auto_augment.h"
#include "data/rand_augment.h"
#include "data/random_variates.h"
#include "data/tensor_augment_ops.h"
#include "data/trivial_augment.h"

namespace xtrain {
namespace {

constexpr int kSide = 20;

// A varied 20 x 20 image, so that every operation changes it.
cv::Mat varied_image() {
  cv::Mat image(kSide, kSide, CV_8UC3);
  for (int y = 0; y < kSide; ++y) {
    for (int x = 0; x < kSide; ++x) {
      image.at<cv::Vec3b>(y, x) = cv::Vec3b(11 * x + 3 * y, 7 * y + 40, (x * y) % 180 + 30);
    }
  }
  return image;
}

bool same_pixels(const cv::Mat& a, const cv::Mat& b) {
  return a.size() == b.size() && cv::norm(a, b, cv::NORM_INF) == 0;
}

// Whether `count` of `n` trials is within five standard deviations of probability p.
bool near_expected(int count, int n, double p) {
  const double sd = std::sqrt(n * p * (1 - p));
  return std::abs(count - n * p) <= 5 * sd + 1;
}

TEST(RandAugmentDraws, EveryOperationAppearsEquallyAtTheChosenBinWithFairSigns) {
  const int magnitude_bin = 17, calls = 7000;
  std::map<AugmentOp, int> count, negative;
  for (uint64_t key = 0; key < calls; ++key) {
    Rng rng({key});
    for (const AugmentChoice& c : draw_rand_augment(rng, magnitude_bin, kSide, kSide)) {
      ++count[c.op];
      negative[c.op] += c.magnitude < 0;
      EXPECT_EQ(std::abs(c.magnitude),
                augment_magnitude(AugmentSpace::kRandAugment, c.op, magnitude_bin, kRandAugmentBins,
                                  kSide, kSide));
    }
  }
  ASSERT_EQ(count.size(), size_t{kTrivialAugmentOps});  // Invert is not RandAugment's
  for (const auto& [op, n] : count) {
    EXPECT_TRUE(near_expected(n, 2 * calls, 1.0 / kTrivialAugmentOps)) << static_cast<int>(op);
    if (has_signed_magnitude(op)) {
      EXPECT_TRUE(near_expected(negative[op], n, 0.5)) << static_cast<int>(op);
    } else {
      EXPECT_EQ(negative[op], 0) << static_cast<int>(op);
    }
  }
}

TEST(AutoAugmentDraws, StepsApplyWithTheirSubPoliciesProbabilities) {
  const int calls = 50000;
  const auto& policies = imagenet_sub_policies();
  std::vector<int> drawn(kImageNetSubPolicies, 0);
  std::vector<std::map<AugmentOp, int>> applied(kImageNetSubPolicies);
  for (uint64_t key = 0; key < calls; ++key) {
    Rng rng({key});
    Rng sub_policy_rng = rng;  // the first draw picks the sub-policy
    const int id = static_cast<int>(sub_policy_rng.randint(0, kImageNetSubPolicies));
    ++drawn[id];
    for (const AugmentChoice& c : draw_auto_augment(rng, kSide, kSide)) {
      ++applied[id][c.op];
      bool from_policy = false;
      for (const AutoAugmentStep& step : policies[id]) {
        const double magnitude = step.bin < 0
                                     ? 0.0
                                     : augment_magnitude(AugmentSpace::kRandAugment, step.op,
                                                         step.bin, kAutoAugmentBins, kSide, kSide);
        from_policy |= step.op == c.op && std::abs(c.magnitude) == magnitude;
      }
      EXPECT_TRUE(from_policy) << "sub-policy " << id << " op " << static_cast<int>(c.op);
    }
  }
  for (int id = 0; id < kImageNetSubPolicies; ++id) {
    EXPECT_TRUE(near_expected(drawn[id], calls, 1.0 / kImageNetSubPolicies)) << id;
    std::map<AugmentOp, double> expected;  // applications per draw, summed over the two steps
    for (const AutoAugmentStep& step : policies[id]) expected[step.op] += step.probability;
    for (const auto& [op, mean] : expected) {
      const int n = applied[id][op];
      if (mean == 1) {
        EXPECT_EQ(n, drawn[id]) << "sub-policy " << id;
      } else if (mean < 1) {
        EXPECT_TRUE(near_expected(n, drawn[id], mean)) << "sub-policy " << id;
      } else {  // both steps' operation: 0, 1 or 2 per draw, a standard deviation below 0.02
        EXPECT_NEAR(n / static_cast<double>(drawn[id]), mean, 0.1) << "sub-policy " << id;
      }
    }
  }
}

TEST(AugMixDraws, DepthsOperationsAndBinsCoverTheirRanges) {
  const int severity = 4, calls = 4000;
  std::map<int, int> depths;
  std::map<AugmentOp, int> ops;
  std::map<double, int> shear_magnitudes;
  int steps = 0;
  for (uint64_t key = 0; key < calls; ++key) {
    Rng rng({key});
    const AugMixDraws draws = draw_augmix(rng, severity, kSide, kSide);
    for (const std::vector<AugmentChoice>& chain : draws.chains) {
      ++depths[static_cast<int>(chain.size())];
      for (const AugmentChoice& c : chain) {
        ++ops[c.op];
        ++steps;
        if (c.op == AugmentOp::kShearX) ++shear_magnitudes[std::abs(c.magnitude)];
      }
    }
  }
  ASSERT_EQ(depths.size(), 3u);
  for (const auto& [depth, n] : depths) {
    EXPECT_TRUE(depth >= 1 && depth <= 3);
    EXPECT_TRUE(near_expected(n, kAugMixWidth * calls, 1.0 / 3)) << "depth " << depth;
  }
  ASSERT_EQ(ops.size(), size_t{kAugMixOps});
  for (const auto& [op, n] : ops) {
    EXPECT_TRUE(near_expected(n, steps, 1.0 / kAugMixOps)) << static_cast<int>(op);
  }
  ASSERT_EQ(shear_magnitudes.size(), size_t{severity}) << "the first `severity` bins, each";
  for (int bin = 0; bin < severity; ++bin) {
    EXPECT_EQ(shear_magnitudes.count(augment_magnitude(AugmentSpace::kAugMix, AugmentOp::kShearX,
                                                       bin, kAugMixBins, kSide, kSide)),
              1u);
  }
}

TEST(AugMixDraws, MixingWeightsAreBetaAndDirichletOfAlphaOne) {
  const int calls = 20000;
  double m0_sum = 0, chain_sum[kAugMixWidth] = {};
  int m0_below_quarter = 0;
  for (uint64_t key = 0; key < calls; ++key) {
    Rng rng({key});
    const AugMixDraws draws = draw_augmix(rng, 3, kSide, kSide);
    EXPECT_NEAR(draws.m[0] + draws.m[1], 1.0, 1e-6);
    EXPECT_NEAR(draws.chain_weights[0] + draws.chain_weights[1] + draws.chain_weights[2], 1.0,
                1e-6);
    m0_sum += draws.m[0];
    m0_below_quarter += draws.m[0] < 0.25f;
    for (int i = 0; i < kAugMixWidth; ++i) chain_sum[i] += draws.chain_weights[i];
  }
  // Beta(1, 1) is uniform: mean 1/2 (standard deviation of the mean 1 / sqrt(12 n)), a quarter
  // below 1/4; Dirichlet(1, 1, 1)'s weights have mean 1/3 (sd of each 1 / sqrt(18)).
  EXPECT_NEAR(m0_sum / calls, 0.5, 5 / std::sqrt(12.0 * calls));
  EXPECT_TRUE(near_expected(m0_below_quarter, calls, 0.25));
  for (double sum : chain_sum) EXPECT_NEAR(sum / calls, 1.0 / 3, 5 / std::sqrt(18.0 * calls));
}

TEST(Gamma, DrawsHaveTheShapesMeanAndVariance) {
  for (double shape : {0.3, 1.0, 4.5}) {
    Rng rng({7, static_cast<uint64_t>(shape * 10)});
    const int n = 40000;
    double sum = 0, sum_sq = 0;
    for (int i = 0; i < n; ++i) {
      const double g = gamma(rng, shape);
      ASSERT_GT(g, 0.0);
      sum += g;
      sum_sq += g * g;
    }
    const double mean = sum / n, variance = sum_sq / n - mean * mean;
    // Gamma(k, 1): mean k, variance k; the mean's sd is sqrt(k / n), the variance's far below
    // 10% of k at this n.
    EXPECT_NEAR(mean, shape, 5 * std::sqrt(shape / n)) << "shape " << shape;
    EXPECT_NEAR(variance, shape, 0.1 * shape) << "shape " << shape;
  }
}

TEST(AugMixMixing, SumsInFloatAndTruncatesLikeTorchsToUint8) {
  // Half the image and half its inverse: 127.5 everywhere, which .to(uint8) truncates to 127
  // (rounding would give 128).
  AugMixDraws draws;
  draws.m = {0.5f, 0.5f};
  draws.chain_weights = {1.0f, 0.0f, 0.0f};
  draws.chains[0] = {{AugmentOp::kInvert, 0.0}};
  const cv::Mat out = mix_augmix(varied_image(), draws);
  EXPECT_EQ(cv::countNonZero(out.reshape(1) != 127), 0);
  // One chain weighed fully gives that chain's pixels.
  draws.m = {0.0f, 1.0f};
  draws.chains[0] = {{AugmentOp::kRotate, 12.0}, {AugmentOp::kSolarize, 100.0}};
  const cv::Mat chain =
      apply_tensor_augment_op(apply_tensor_augment_op(varied_image(), AugmentOp::kRotate, 12.0),
                              AugmentOp::kSolarize, 100.0);
  EXPECT_TRUE(same_pixels(mix_augmix(varied_image(), draws), chain));
}

TEST(AugmentPolicyPixels, AreTheDrawsAppliedInOrderAndRepeatForTheSameRng) {
  const cv::Mat image = varied_image();
  int differing = 0;
  for (uint64_t key = 0; key < 30; ++key) {
    Rng ra({key}), ra_draws({key});
    cv::Mat expected = image;
    for (const AugmentChoice& c : draw_rand_augment(ra_draws, 9, kSide, kSide)) {
      expected = apply_augment_op(expected, c.op, c.magnitude);
    }
    EXPECT_TRUE(same_pixels(rand_augment(image, 9, ra), expected)) << "key " << key;

    Rng aa({key}), aa_draws({key});
    expected = image;
    for (const AugmentChoice& c : draw_auto_augment(aa_draws, kSide, kSide)) {
      expected = apply_augment_op(expected, c.op, c.magnitude);
    }
    EXPECT_TRUE(same_pixels(auto_augment_imagenet(image, aa), expected)) << "key " << key;

    Rng mix({key}), mix_draws({key}), again({key}), other({key + 1000});
    const cv::Mat mixed = augmix(image, 3, mix);
    EXPECT_TRUE(same_pixels(mixed, mix_augmix(image, draw_augmix(mix_draws, 3, kSide, kSide))));
    EXPECT_TRUE(same_pixels(mixed, augmix(image, 3, again)));
    differing += !same_pixels(mixed, augmix(image, 3, other));
    EXPECT_EQ(mix.next_u64(), again.next_u64()) << "the same number of draws";
  }
  EXPECT_GT(differing, 25) << "another key, other pixels";
}

}  // namespace
}  // namespace xtrain
