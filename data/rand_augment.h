// rand_augment: torchvision's RandAugment (num_ops=2, num_magnitude_bins=31, nearest, fill None):
// twice, one operation drawn uniformly from TrivialAugmentWide's 14, at the one magnitude bin the
// run chose (--ra_magnitude) of RandAugment's own tables, with a random sign for the signed
// operations. The draws come from xtrain's Rng in torchvision's order, not from torch's generator.
// Not here: the tables (augment_magnitudes.h), the pixels (augment_ops.h).
#pragma once

#include <array>
#include <opencv2/core.hpp>

#include "data/augment_ops.h"
#include "data/rng.h"

namespace xtrain {

inline constexpr int kRandAugmentOps = 2;
inline constexpr int kRandAugmentBins = 31;
inline constexpr int kRandAugmentDefaultMagnitude = 9;  // torchvision's, and its reference script's

// The operations and magnitudes RandAugment draws for a height x width image at bin
// `magnitude_bin` (0 to 30), in the order it applies them.
std::array<AugmentChoice, kRandAugmentOps> draw_rand_augment(Rng& rng, int magnitude_bin,
                                                             int height, int width);

// RandAugment on 8-bit RGB pixels.
cv::Mat rand_augment(const cv::Mat& rgb, int magnitude_bin, Rng& rng);

}  // namespace xtrain
