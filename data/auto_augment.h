// auto_augment: torchvision's AutoAugment with its IMAGENET policy (nearest, fill None): one of
// its 25 sub-policies drawn uniformly, then each of the sub-policy's two steps applied with its
// probability, at its magnitude bin of the 10-bin tables AutoAugment shares with RandAugment,
// with a random sign for the signed operations. As torchvision, the sub-policy, both
// probabilities' uniforms and both signs are drawn first, whichever steps apply. The draws come
// from xtrain's Rng, not from torch's generator.
// Not here: the tables (augment_magnitudes.h), the pixels (augment_ops.h).
#pragma once

#include <array>
#include <opencv2/core.hpp>
#include <vector>

#include "data/augment_ops.h"
#include "data/rng.h"

namespace xtrain {

inline constexpr int kAutoAugmentBins = 10;
inline constexpr int kImageNetSubPolicies = 25;

// One step of a sub-policy: `op` with `probability` at bin `bin` (-1 for the operations without
// a magnitude).
struct AutoAugmentStep {
  AugmentOp op;
  float probability;
  int bin;
};
using SubPolicy = std::array<AutoAugmentStep, 2>;

// AutoAugmentPolicy.IMAGENET's sub-policies, in torchvision's order.
const std::array<SubPolicy, kImageNetSubPolicies>& imagenet_sub_policies();

// The operations and magnitudes AutoAugment(IMAGENET) applies to a height x width image, in
// order: none, one or two.
std::vector<AugmentChoice> draw_auto_augment(Rng& rng, int height, int width);

// AutoAugment(IMAGENET) on 8-bit RGB pixels.
cv::Mat auto_augment_imagenet(const cv::Mat& rgb, Rng& rng);

}  // namespace xtrain
