#include "data/rand_augment.h"

#include "data/augment_magnitudes.h"
#include "data/trivial_augment.h"
#include "lib/base/check.h"

namespace xtrain {

std::array<AugmentChoice, kRandAugmentOps> draw_rand_augment(Rng& rng, int magnitude_bin,
                                                             int height, int width) {
  XTRAIN_CHECK(magnitude_bin >= 0 && magnitude_bin < kRandAugmentBins,
               "--ra_magnitude: expected an integer from 0 to {}, got {}", kRandAugmentBins - 1,
               magnitude_bin);
  std::array<AugmentChoice, kRandAugmentOps> choices;
  for (AugmentChoice& choice : choices) {
    choice.op = static_cast<AugmentOp>(rng.randint(0, kTrivialAugmentOps));  // the same 14
    choice.magnitude = augment_magnitude(AugmentSpace::kRandAugment, choice.op, magnitude_bin,
                                         kRandAugmentBins, height, width);
    if (has_signed_magnitude(choice.op) && rng.randint(0, 2) == 1) choice.magnitude *= -1.0;
  }
  return choices;
}

cv::Mat rand_augment(const cv::Mat& rgb, int magnitude_bin, Rng& rng) {
  cv::Mat out = rgb;
  for (const AugmentChoice& choice : draw_rand_augment(rng, magnitude_bin, rgb.rows, rgb.cols)) {
    out = apply_augment_op(out, choice.op, choice.magnitude);
  }
  return out;
}

}  // namespace xtrain
