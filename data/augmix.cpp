#include "data/augmix.h"

#include <cstdint>

#include "data/augment_magnitudes.h"
#include "data/random_variates.h"
#include "data/tensor_augment_ops.h"
#include "lib/base/check.h"

namespace xtrain {
namespace {

constexpr double kAlpha = 1.0;
constexpr int kMaxChainDepth = 3;

}  // namespace

const std::array<AugmentOp, kAugMixOps>& augmix_ops() {
  static const std::array<AugmentOp, kAugMixOps> ops = {
      AugmentOp::kShearX,     AugmentOp::kShearY,       AugmentOp::kTranslateX,
      AugmentOp::kTranslateY, AugmentOp::kRotate,       AugmentOp::kPosterize,
      AugmentOp::kSolarize,   AugmentOp::kAutoContrast, AugmentOp::kEqualize,
      AugmentOp::kBrightness, AugmentOp::kColor,        AugmentOp::kContrast,
      AugmentOp::kSharpness};
  return ops;
}

AugMixDraws draw_augmix(Rng& rng, int severity, int height, int width) {
  XTRAIN_CHECK(severity >= 1 && severity <= kAugMixBins,
               "--augmix_severity: expected an integer from 1 to {}, got {}", kAugMixBins,
               severity);
  AugMixDraws draws;
  const std::vector<float> m = dirichlet(rng, kAlpha, 2);
  const std::vector<float> weights = dirichlet(rng, kAlpha, kAugMixWidth);
  for (int i = 0; i < kAugMixWidth; ++i) draws.chain_weights[i] = weights[i];
  draws.m = {m[0], m[1]};
  for (std::vector<AugmentChoice>& chain : draws.chains) {
    const int depth = static_cast<int>(rng.randint(1, kMaxChainDepth + 1));
    for (int i = 0; i < depth; ++i) {
      AugmentChoice choice;
      choice.op = augmix_ops()[rng.randint(0, kAugMixOps)];
      if (has_magnitude_bins(choice.op)) {
        const int bin = static_cast<int>(rng.randint(0, severity));
        choice.magnitude =
            augment_magnitude(AugmentSpace::kAugMix, choice.op, bin, kAugMixBins, height, width);
      }
      if (has_signed_magnitude(choice.op) && rng.randint(0, 2) == 1) choice.magnitude *= -1.0;
      chain.push_back(choice);
    }
  }
  return draws;
}

cv::Mat mix_augmix(const cv::Mat& rgb, const AugMixDraws& draws) {
  XTRAIN_CHECK(rgb.type() == CV_8UC3 && rgb.isContinuous(),
               "mix_augmix: expected contiguous 8-bit RGB pixels");
  const size_t n = rgb.total() * 3;
  const uint8_t* in = rgb.ptr<uint8_t>();
  std::vector<float> mix(n);
  for (size_t i = 0; i < n; ++i) mix[i] = draws.m[0] * static_cast<float>(in[i]);
  for (int c = 0; c < kAugMixWidth; ++c) {
    cv::Mat augmented = rgb;
    for (const AugmentChoice& choice : draws.chains[c]) {
      augmented = apply_tensor_augment_op(augmented, choice.op, choice.magnitude);
    }
    const float weight = draws.chain_weights[c] * draws.m[1];  // combined_weights, in float32
    const uint8_t* a = augmented.ptr<uint8_t>();
    for (size_t i = 0; i < n; ++i) mix[i] += weight * static_cast<float>(a[i]);
  }
  // .to(uint8) truncates; the weights sum to 1 within float32 rounding, so no value leaves
  // [0, 256).
  cv::Mat out(rgb.size(), CV_8UC3);
  uint8_t* o = out.ptr<uint8_t>();
  for (size_t i = 0; i < n; ++i) o[i] = static_cast<uint8_t>(mix[i]);
  return out;
}

cv::Mat augmix(const cv::Mat& rgb, int severity, Rng& rng) {
  return mix_augmix(rgb, draw_augmix(rng, severity, rgb.rows, rgb.cols));
}

}  // namespace xtrain
