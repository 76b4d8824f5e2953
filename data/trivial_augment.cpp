#include "data/trivial_augment.h"

#include <cmath>

#include "lib/base/check.h"

namespace xtrain {
namespace {

// torch.linspace(0, 0.99, 31) and torch.linspace(0, 32, 31) as torchvision's tables hold them.
// They are copied rather than computed: ATen fills a float32 linspace partly in vector lanes
// (base + lane * step) and partly one value at a time, so a few of its values differ in their
// last bit from start + step * i. The golden test compares them with torch's.
constexpr float kUnitBins[kTrivialAugmentBins] = {
    0.0f,   0.033f, 0.066f,      0.099f,      0.132f, 0.16499999f, 0.198f, 0.231f,
    0.264f, 0.297f, 0.32999998f, 0.363f,      0.396f, 0.429f,      0.462f, 0.495f,
    0.528f, 0.561f, 0.594f,      0.62700003f, 0.66f,  0.693f,      0.726f, 0.759f,
    0.792f, 0.825f, 0.85800004f, 0.89100003f, 0.924f, 0.957f,      0.99f};
constexpr float kTranslateBins[kTrivialAugmentBins] = {
    0.0f,       1.0666667f, 2.1333334f, 3.2000003f, 4.266667f,  5.3333335f, 6.4000006f, 7.466667f,
    8.533334f,  9.6f,       10.666667f, 11.733334f, 12.800001f, 13.866667f, 14.933334f, 16.0f,
    17.066666f, 18.133333f, 19.199999f, 20.266666f, 21.333332f, 22.4f,      23.466667f, 24.533333f,
    25.6f,      26.666666f, 27.733334f, 28.8f,      29.866667f, 30.933332f, 32.0f};

}  // namespace

bool has_magnitude_bins(AugmentOp op) {
  return op != AugmentOp::kIdentity && op != AugmentOp::kAutoContrast && op != AugmentOp::kEqualize;
}

bool has_signed_magnitude(AugmentOp op) {
  return has_magnitude_bins(op) && op != AugmentOp::kPosterize && op != AugmentOp::kSolarize;
}

double trivial_augment_magnitude(AugmentOp op, int bin) {
  XTRAIN_CHECK(bin >= 0 && bin < kTrivialAugmentBins, "TrivialAugmentWide: no bin {}", bin);
  switch (op) {
    case AugmentOp::kShearX:
    case AugmentOp::kShearY:
    case AugmentOp::kBrightness:
    case AugmentOp::kColor:
    case AugmentOp::kContrast:
    case AugmentOp::kSharpness:
      return kUnitBins[bin];
    case AugmentOp::kTranslateX:
    case AugmentOp::kTranslateY:
      return kTranslateBins[bin];
    case AugmentOp::kRotate:
      return 4.5 * bin;          // torch.linspace(0, 135, 31): steps of 4.5, exact in float32
    case AugmentOp::kPosterize:  // 8 - (arange(31) / ((31 - 1) / 6)).round(): half to even
      return 8 - std::nearbyint(static_cast<float>(bin) / 5.0f);
    case AugmentOp::kSolarize:
      return 255.0 - 8.5 * bin;  // torch.linspace(255, 0, 31), exact likewise
    case AugmentOp::kIdentity:
    case AugmentOp::kAutoContrast:
    case AugmentOp::kEqualize:
      return 0.0;
  }
  return 0.0;
}

AugmentChoice draw_trivial_augment(Rng& rng) {
  AugmentChoice choice;
  choice.op = static_cast<AugmentOp>(rng.randint(0, kNumAugmentOps));
  if (has_magnitude_bins(choice.op)) {
    choice.magnitude = trivial_augment_magnitude(choice.op, rng.randint(0, kTrivialAugmentBins));
  }
  if (has_signed_magnitude(choice.op) && rng.randint(0, 2) == 1) choice.magnitude *= -1.0;
  return choice;
}

cv::Mat trivial_augment_wide(const cv::Mat& rgb, Rng& rng) {
  const AugmentChoice choice = draw_trivial_augment(rng);
  return apply_augment_op(rgb, choice.op, choice.magnitude);
}

}  // namespace xtrain
