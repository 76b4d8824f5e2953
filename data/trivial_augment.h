// trivial_augment: torchvision's TrivialAugmentWide (num_magnitude_bins=31, nearest, fill None):
// one operation drawn uniformly from its 14, then, for the operations with magnitudes, one of
// their 31 bins, then, for the signed ones, a sign; the image goes through that operation
// (augment_ops.h). The draws come from xtrain's Rng in torchvision's order, not from torch's
// generator; the magnitudes are torchvision's float32 tables (augment_magnitudes.h).
// Not here: the pixels of each operation (augment_ops.h), where the policy sits in a
// recipe (transforms.cpp).
#pragma once

#include <opencv2/core.hpp>

#include "data/augment_ops.h"
#include "data/rng.h"

namespace xtrain {

inline constexpr int kTrivialAugmentBins = 31;
// Its operations are the first 14 of AugmentOp, in its order (all but Invert).
inline constexpr int kTrivialAugmentOps = 14;

// The operation and magnitude TrivialAugmentWide draws.
AugmentChoice draw_trivial_augment(Rng& rng);

// TrivialAugmentWide on 8-bit RGB pixels: the drawn operation applied to `rgb`.
cv::Mat trivial_augment_wide(const cv::Mat& rgb, Rng& rng);

}  // namespace xtrain
