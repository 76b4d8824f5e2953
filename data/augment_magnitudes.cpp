#include "data/augment_magnitudes.h"

#include <cmath>

#include "lib/base/check.h"

namespace xtrain {
namespace {

constexpr int kLanes = 8;

struct SpaceRanges {
  float shear, rotate, enhance;
  double translate_per_side;  // 0 for TrivialAugmentWide's fixed range
  float fixed_translate;
  int posterize_top, posterize_divisor;
};

SpaceRanges ranges_of(AugmentSpace space) {
  switch (space) {
    case AugmentSpace::kTrivialAugmentWide:
      return {0.99f, 135.0f, 0.99f, 0.0, 32.0f, 8, 6};
    case AugmentSpace::kRandAugment:
      return {0.3f, 30.0f, 0.9f, 150.0 / 331.0, 0.0f, 8, 4};
    case AugmentSpace::kAugMix:
      return {0.3f, 30.0f, 0.9f, 1.0 / 3.0, 0.0f, 4, 4};
  }
  return {};
}

// The translate range's end as torchvision writes it, in doubles: 150.0 / 331.0 * side, or
// side / 3.0 (not side * (1 / 3.0), which rounds otherwise).
float translate_end(AugmentSpace space, const SpaceRanges& r, int side) {
  if (space == AugmentSpace::kTrivialAugmentWide) return r.fixed_translate;
  if (space == AugmentSpace::kAugMix) return static_cast<float>(side / 3.0);
  return static_cast<float>(r.translate_per_side * side);
}

}  // namespace

float torch_linspace(float start, float end, int steps, int i) {
  XTRAIN_CHECK(steps >= 2 && i >= 0 && i < steps, "torch_linspace: no value {} of {}", i, steps);
  const float step = (end - start) / static_cast<float>(steps - 1);
  const int halfway = steps / 2;
  const auto from_ends = [&](int index) {
    return index < halfway ? std::fma(step, static_cast<float>(index), start)
                           : std::fma(-step, static_cast<float>(steps - index - 1), end);
  };
  const int vectorized = steps / (2 * kLanes) * (2 * kLanes);
  if (i >= vectorized) return from_ends(i);
  const int first = i / kLanes * kLanes;
  return from_ends(first) + static_cast<float>(i - first) * step;
}

bool has_magnitude_bins(AugmentOp op) {
  return op != AugmentOp::kIdentity && op != AugmentOp::kAutoContrast &&
         op != AugmentOp::kEqualize && op != AugmentOp::kInvert;
}

bool has_signed_magnitude(AugmentOp op) {
  return has_magnitude_bins(op) && op != AugmentOp::kPosterize && op != AugmentOp::kSolarize;
}

double augment_magnitude(AugmentSpace space, AugmentOp op, int bin, int num_bins, int height,
                         int width) {
  XTRAIN_CHECK(num_bins >= 2 && bin >= 0 && bin < num_bins, "augment_magnitude: no bin {} of {}",
               bin, num_bins);
  const SpaceRanges r = ranges_of(space);
  switch (op) {
    case AugmentOp::kShearX:
    case AugmentOp::kShearY:
      return torch_linspace(0.0f, r.shear, num_bins, bin);
    case AugmentOp::kTranslateX:
      return torch_linspace(0.0f, translate_end(space, r, width), num_bins, bin);
    case AugmentOp::kTranslateY:
      return torch_linspace(0.0f, translate_end(space, r, height), num_bins, bin);
    case AugmentOp::kRotate:
      return torch_linspace(0.0f, r.rotate, num_bins, bin);
    case AugmentOp::kBrightness:
    case AugmentOp::kColor:
    case AugmentOp::kContrast:
    case AugmentOp::kSharpness:
      return torch_linspace(0.0f, r.enhance, num_bins, bin);
    case AugmentOp::kPosterize: {  // top - (arange(bins) / ((bins - 1) / divisor)).round()
      const float divisor =
          static_cast<float>((num_bins - 1) / static_cast<double>(r.posterize_divisor));
      return r.posterize_top - std::nearbyint(static_cast<float>(bin) / divisor);  // half to even
    }
    case AugmentOp::kSolarize:
      return torch_linspace(255.0f, 0.0f, num_bins, bin);
    case AugmentOp::kIdentity:
    case AugmentOp::kAutoContrast:
    case AugmentOp::kEqualize:
    case AugmentOp::kInvert:
      return 0.0;
  }
  return 0.0;
}

}  // namespace xtrain
