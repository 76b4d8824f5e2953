#include "data/trivial_augment.h"

#include "data/augment_magnitudes.h"

namespace xtrain {

AugmentChoice draw_trivial_augment(Rng& rng) {
  AugmentChoice choice;
  choice.op = static_cast<AugmentOp>(rng.randint(0, kTrivialAugmentOps));
  if (has_magnitude_bins(choice.op)) {
    const int bin = static_cast<int>(rng.randint(0, kTrivialAugmentBins));
    choice.magnitude = augment_magnitude(AugmentSpace::kTrivialAugmentWide, choice.op, bin,
                                         kTrivialAugmentBins, 0, 0);
  }
  if (has_signed_magnitude(choice.op) && rng.randint(0, 2) == 1) choice.magnitude *= -1.0;
  return choice;
}

cv::Mat trivial_augment_wide(const cv::Mat& rgb, Rng& rng) {
  const AugmentChoice choice = draw_trivial_augment(rng);
  return apply_augment_op(rgb, choice.op, choice.magnitude);
}

}  // namespace xtrain
