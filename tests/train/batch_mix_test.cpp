// Batch mixing against torchvision's RandomMixup and RandomCutmix (tests/golden/batch_mix.json,
// written by scripts/make_batch_mix_golden.py for given draws), the loss over their soft targets
// against torch's cross-entropy, and the draws themselves.
#include "lib/train/batch_mix.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "data/random_variates.h"
#include "lib/base/check.h"
#include "lib/kernels/cross_entropy.h"
#include "tests/models/golden_file.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

BatchMix mix_of(const nlohmann::json& c, int height, int width) {
  const nlohmann::json& draws = c["draws"];
  if (c["kind"] == "mixup") return BatchMix{draws["lambda"].get<float>()};
  return cutmix_at(draws["lambda"], draws["cx"], draws["cy"], height, width);
}

TEST(BatchMix, MixesAsTorchvisionAndTheLossTakesItsSoftTargets) {
  const nlohmann::json golden = testing::load_golden_file("batch_mix.json");
  const int n = golden["n"], h = golden["height"], w = golden["width"], c = golden["channels"];
  const std::vector<int32_t> labels = golden["labels"];
  for (const nlohmann::json& expected : golden["cases"]) {
    SCOPED_TRACE(expected.dump().substr(0, 60));
    const BatchMix mix = mix_of(expected, h, w);
    EXPECT_FLOAT_EQ(mix.lambda, expected["lambda"].get<float>());
    std::vector<float> images = golden["images"];
    mix_batch(mix, images.data(), n, h, w, c);
    // torch rounds lambda * x and (1 - lambda) * x' each, as xtrain does: exact.
    EXPECT_EQ(images, expected["images"].get<std::vector<float>>());

    const std::vector<float> logits = expected["logits"];
    const kernels::CrossEntropyShape s{n, golden["classes"], golden["label_smoothing"], mix.lambda};
    std::vector<float> probs(logits.size());
    const float loss =
        kernels::cross_entropy_forward(s, logits.data(), labels.data(), probs.data(), Exec{});
    EXPECT_NEAR(loss, expected["loss"].get<float>(), 2e-6f);
  }
}

// In bfloat16 the mix is computed in float32 and rounded once.
TEST(BatchMix, BFloat16ImagesTakeTheFloatMixRounded) {
  const int n = 3, h = 2, w = 2, c = 3;
  const std::vector<float> floats = testing::random_floats(n * h * w * c, 3);
  std::vector<BFloat16> halves;
  std::vector<float> rounded;
  for (float x : floats) {
    halves.push_back(to_bfloat16(x));
    rounded.push_back(to_float(halves.back()));
  }
  const BatchMix mix{0.3f};
  mix_batch(mix, halves.data(), n, h, w, c);
  mix_batch(mix, rounded.data(), n, h, w, c);
  for (size_t i = 0; i < halves.size(); ++i) {
    EXPECT_EQ(to_float(halves[i]), round_to_bfloat16(rounded[i])) << i;
  }
}

// Images larger than the piece kept on the stack roll in place all the same: each image ends as
// the mix of itself and its original predecessor.
TEST(BatchMix, LargeImagesRollInPlace) {
  const int n = 4, h = 30, w = 20, c = 3;
  const size_t image = size_t(h) * w * c;
  const std::vector<float> original = testing::random_floats(n * image, 5);
  std::vector<float> images = original;
  mix_batch(BatchMix{0.25f}, images.data(), n, h, w, c);
  for (int i = 0; i < n; ++i) {
    const int previous = (i + n - 1) % n;
    for (size_t j = 0; j < image; j += 97) {
      EXPECT_EQ(images[i * image + j],
                original[i * image + j] * 0.25f + original[previous * image + j] * 0.75f);
    }
  }
  images = original;
  const BatchMix box = cutmix_at(0.5, 10, 15, h, w);
  mix_batch(box, images.data(), n, h, w, c);
  for (int i = 0; i < n; ++i) {
    const int previous = (i + n - 1) % n;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const bool inside = y >= box.y0 && y < box.y1 && x >= box.x0 && x < box.x1;
        const size_t at = ((size_t(i) * h + y) * w + x) * c;
        EXPECT_EQ(images[at], original[(inside ? previous * image : i * image) + at - i * image]);
      }
  }
}

// CutMix's box follows torchvision's arithmetic and clips at the image's edges; lambda becomes
// the area left.
TEST(BatchMix, CutMixBoxClipsAndLambdaIsTheAreaLeft) {
  const BatchMix corner = cutmix_at(0.0, 0, 0, 10, 20);  // half sides 10 and 5
  EXPECT_EQ(corner.x0, 0);
  EXPECT_EQ(corner.x1, 10);
  EXPECT_EQ(corner.y0, 0);
  EXPECT_EQ(corner.y1, 5);
  EXPECT_FLOAT_EQ(corner.lambda, 1.0f - 50.0f / 200.0f);
  EXPECT_FLOAT_EQ(cutmix_at(1.0, 7, 3, 10, 20).lambda, 1.0f);  // an empty box
}

// The draws: both kinds appear when both are on, lambda in [0, 1], each batch's draws a function
// of its generator.
TEST(BatchMix, DrawsBothKindsAndRepeatsForTheSameKeys) {
  const BatchMixOptions both{0.2f, 1.0f};
  int cutmixes = 0;
  for (uint64_t step = 0; step < 400; ++step) {
    Rng rng({42, step});
    const BatchMix mix = draw_batch_mix(both, rng, 32, 32);
    cutmixes += mix.cutmix;
    ASSERT_GE(mix.lambda, 0.0f);
    ASSERT_LE(mix.lambda, 1.0f);
    Rng again({42, step});
    const BatchMix repeat = draw_batch_mix(both, again, 32, 32);
    ASSERT_EQ(repeat.lambda, mix.lambda);
    ASSERT_EQ(repeat.x0, mix.x0);
  }
  EXPECT_GT(cutmixes, 150);
  EXPECT_LT(cutmixes, 250);
  Rng rng({1});
  EXPECT_FALSE(draw_batch_mix(BatchMixOptions{0.2f, 0.0f}, rng, 8, 8).cutmix);
  EXPECT_TRUE(draw_batch_mix(BatchMixOptions{0.0f, 1.0f}, rng, 8, 8).cutmix);
  EXPECT_THROW(draw_batch_mix(BatchMixOptions{}, rng, 8, 8), Error);
}

// Beta(a, a), mixup's and CutMix's lambda, has mean 1/2 and variance 1 / (4 (2a + 1)), for
// alphas below 1 (mixup's 0.2) and above. (Gamma's own moments: augment_policy_draws_test.cpp.)
TEST(RandomVariates, BetaHasItsMoments) {
  for (const double a : {0.2, 1.0, 4.0}) {
    SCOPED_TRACE(a);
    Rng rng({7, static_cast<uint64_t>(a * 10)});
    const int draws = 20000;
    double sum = 0, squares = 0;
    for (int i = 0; i < draws; ++i) {
      const double b = beta(rng, a, a);
      ASSERT_GE(b, 0.0);
      ASSERT_LE(b, 1.0);
      sum += b;
      squares += b * b;
    }
    const double mean = sum / draws, variance = squares / draws - mean * mean;
    EXPECT_NEAR(mean, 0.5, 0.01);
    EXPECT_NEAR(variance, 1.0 / (4 * (2 * a + 1)), 0.01);
  }
}

}  // namespace
}  // namespace xtrain
