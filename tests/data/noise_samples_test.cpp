// NoiseSamples: --fake_images=noise's samples are torch.randn's distribution (mean 0, standard
// deviation 1, finite) with labels uniform over the classes, drawn from the seed alone.
#include "data/noise_samples.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace xtrain {
namespace {

constexpr int kSide = 32;

TEST(NoiseSamples, PixelsAreStandardNormal) {
  const NoiseSamples noise(kSide, 10, 42);
  const int64_t n = NoiseSamples::kCount * noise.image_elements();
  double sum = 0.0, sum_squares = 0.0;
  int64_t beyond_two_sigma = 0;
  for (int k = 0; k < NoiseSamples::kCount; ++k) {
    const float* image = noise.image(k);
    for (int64_t i = 0; i < noise.image_elements(); ++i) {
      ASSERT_TRUE(std::isfinite(image[i])) << "sample " << k << " pixel " << i;
      sum += image[i];
      sum_squares += double{image[i]} * image[i];
      beyond_two_sigma += std::abs(image[i]) > 2.0f;
    }
  }
  const double mean = sum / n, std = std::sqrt(sum_squares / n - mean * mean);
  // Over about 200,000 pixels the mean and standard deviation of N(0, 1) stray by about 0.002;
  // uniform pixels in [-1, 1], or a lost half of Box-Muller's pairs, would miss these bounds.
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(std, 1.0, 0.01);
  // A normal's tails: 4.55% of the draws lie beyond 2 sigma.
  EXPECT_NEAR(static_cast<double>(beyond_two_sigma) / n, 0.0455, 0.003);
  // Each image on its own is centred, not one shifted per sample (its 3,072 pixels' mean strays by
  // about 0.02).
  for (int k = 0; k < NoiseSamples::kCount; ++k) {
    double image_sum = 0.0;
    for (int64_t i = 0; i < noise.image_elements(); ++i) image_sum += noise.image(k)[i];
    EXPECT_NEAR(image_sum / noise.image_elements(), 0.0, 0.08) << "sample " << k;
  }
}

TEST(NoiseSamples, LabelsCoverTheClassesAndNoMore) {
  const NoiseSamples three(kSide, 3, 42);
  std::set<int32_t> seen;
  for (int k = 0; k < NoiseSamples::kCount; ++k) seen.insert(three.label(k));
  EXPECT_EQ(seen, (std::set<int32_t>{0, 1, 2}));  // 64 draws miss a class with odds below 1e-11
  const NoiseSamples thousand(kSide, 1000, 42);
  seen.clear();
  for (int k = 0; k < NoiseSamples::kCount; ++k) {
    EXPECT_GE(thousand.label(k), 0);
    EXPECT_LT(thousand.label(k), 1000);
    seen.insert(thousand.label(k));
  }
  EXPECT_GT(seen.size(), 50u);  // 64 uniform draws of 1000 repeat a few labels, not most
  const NoiseSamples one(kSide, 1, 42);
  for (int k = 0; k < NoiseSamples::kCount; ++k) EXPECT_EQ(one.label(k), 0);
}

TEST(NoiseSamples, TheSeedAloneDecidesTheSamples) {
  const NoiseSamples a(kSide, 1000, 42), b(kSide, 1000, 42), other(kSide, 1000, 43);
  const int64_t n = a.image_elements();
  bool labels_differ = false;
  for (int k = 0; k < NoiseSamples::kCount; ++k) {
    EXPECT_EQ(a.label(k), b.label(k));
    EXPECT_TRUE(std::equal(a.image(k), a.image(k) + n, b.image(k))) << "sample " << k;
    EXPECT_FALSE(std::equal(a.image(k), a.image(k) + n, other.image(k))) << "sample " << k;
    labels_differ |= a.label(k) != other.label(k);
  }
  EXPECT_TRUE(labels_differ);
  // The samples differ from each other.
  EXPECT_FALSE(std::equal(a.image(0), a.image(0) + n, a.image(1)));
}

// Index i reads sample i mod kCount, whatever the index.
TEST(NoiseSamples, IndicesCycleThroughTheSamples) {
  const NoiseSamples noise(4, 1000, 7);
  for (int64_t index : {int64_t{0}, int64_t{5}, int64_t{NoiseSamples::kCount - 1}}) {
    const int64_t later = index + 3 * NoiseSamples::kCount;
    EXPECT_EQ(noise.image(later), noise.image(index));
    EXPECT_EQ(noise.label(later), noise.label(index));
  }
  EXPECT_EQ(noise.image(1), noise.image(0) + noise.image_elements());
  EXPECT_EQ(NoiseSamples::bytes_for(4),
            size_t{NoiseSamples::kCount} * (4 * 4 * 3 * sizeof(float) + sizeof(int32_t)));
}

}  // namespace
}  // namespace xtrain
