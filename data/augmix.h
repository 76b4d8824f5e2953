// augmix: torchvision's AugMix (mixture_width=3, chain_depth=-1, alpha=1, all_ops=True,
// bilinear, fill None) on 8-bit RGB: a Beta(1, 1) weight pair (a 2-weight Dirichlet) for the
// original and the augmented mixture, 3 Dirichlet(1) weights for the chains; each chain applies
// 1 to 3 operations drawn uniformly from AugMix's 13, each at one of the first `severity` bins
// of its 10-bin tables, with a random sign for the signed ones. As torchvision, the operations
// act on the uint8 tensor (tensor_augment_ops.h), and the mixture is summed in float32 and
// truncated to uint8. The draws come from xtrain's Rng in torchvision's order, not from torch's
// generator.
// Not here: the operations' pixels (tensor_augment_ops.h), the tables (augment_magnitudes.h),
// Gamma sampling (random_variates.h).
#pragma once

#include <array>
#include <opencv2/core.hpp>
#include <vector>

#include "data/augment_ops.h"
#include "data/rng.h"

namespace xtrain {

inline constexpr int kAugMixWidth = 3;
inline constexpr int kAugMixBins = 10;  // AugMix's _PARAMETER_MAX
inline constexpr int kAugMixOps = 13;
inline constexpr int kAugMixDefaultSeverity = 3;

// AugMix's operations in the order of its augmentation space.
const std::array<AugmentOp, kAugMixOps>& augmix_ops();

// What one AugMix draws: the Beta pair m (m[0] weighs the original image, m[1] the augmented
// mixture), the Dirichlet weights of the chains, and each chain's operations in order.
struct AugMixDraws {
  std::array<float, 2> m{};
  std::array<float, kAugMixWidth> chain_weights{};
  std::array<std::vector<AugmentChoice>, kAugMixWidth> chains;
};

// AugMix's draws for a height x width image at `severity` (1 to 10).
AugMixDraws draw_augmix(Rng& rng, int severity, int height, int width);

// The mixture torchvision computes for these draws: m[0] * image, plus for each chain
// (chain_weights[i] * m[1]) * the chain's image, in float32 in that order, truncated to uint8.
cv::Mat mix_augmix(const cv::Mat& rgb, const AugMixDraws& draws);

// AugMix on 8-bit RGB pixels.
cv::Mat augmix(const cv::Mat& rgb, int severity, Rng& rng);

}  // namespace xtrain
