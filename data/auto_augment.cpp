#include "data/auto_augment.h"

#include "data/augment_magnitudes.h"

namespace xtrain {
namespace {

constexpr int kNone = -1;
using Op = AugmentOp;

}  // namespace

const std::array<SubPolicy, kImageNetSubPolicies>& imagenet_sub_policies() {
  static const std::array<SubPolicy, kImageNetSubPolicies> policies = {{
      {{{Op::kPosterize, 0.4f, 8}, {Op::kRotate, 0.6f, 9}}},
      {{{Op::kSolarize, 0.6f, 5}, {Op::kAutoContrast, 0.6f, kNone}}},
      {{{Op::kEqualize, 0.8f, kNone}, {Op::kEqualize, 0.6f, kNone}}},
      {{{Op::kPosterize, 0.6f, 7}, {Op::kPosterize, 0.6f, 6}}},
      {{{Op::kEqualize, 0.4f, kNone}, {Op::kSolarize, 0.2f, 4}}},
      {{{Op::kEqualize, 0.4f, kNone}, {Op::kRotate, 0.8f, 8}}},
      {{{Op::kSolarize, 0.6f, 3}, {Op::kEqualize, 0.6f, kNone}}},
      {{{Op::kPosterize, 0.8f, 5}, {Op::kEqualize, 1.0f, kNone}}},
      {{{Op::kRotate, 0.2f, 3}, {Op::kSolarize, 0.6f, 8}}},
      {{{Op::kEqualize, 0.6f, kNone}, {Op::kPosterize, 0.4f, 6}}},
      {{{Op::kRotate, 0.8f, 8}, {Op::kColor, 0.4f, 0}}},
      {{{Op::kRotate, 0.4f, 9}, {Op::kEqualize, 0.6f, kNone}}},
      {{{Op::kEqualize, 0.0f, kNone}, {Op::kEqualize, 0.8f, kNone}}},
      {{{Op::kInvert, 0.6f, kNone}, {Op::kEqualize, 1.0f, kNone}}},
      {{{Op::kColor, 0.6f, 4}, {Op::kContrast, 1.0f, 8}}},
      {{{Op::kRotate, 0.8f, 8}, {Op::kColor, 1.0f, 2}}},
      {{{Op::kColor, 0.8f, 8}, {Op::kSolarize, 0.8f, 7}}},
      {{{Op::kSharpness, 0.4f, 7}, {Op::kInvert, 0.6f, kNone}}},
      {{{Op::kShearX, 0.6f, 5}, {Op::kEqualize, 1.0f, kNone}}},
      {{{Op::kColor, 0.4f, 0}, {Op::kEqualize, 0.6f, kNone}}},
      {{{Op::kEqualize, 0.4f, kNone}, {Op::kSolarize, 0.2f, 4}}},
      {{{Op::kSolarize, 0.6f, 5}, {Op::kAutoContrast, 0.6f, kNone}}},
      {{{Op::kInvert, 0.6f, kNone}, {Op::kEqualize, 1.0f, kNone}}},
      {{{Op::kColor, 0.6f, 4}, {Op::kContrast, 1.0f, 8}}},
      {{{Op::kEqualize, 0.8f, kNone}, {Op::kEqualize, 0.6f, kNone}}},
  }};
  return policies;
}

std::vector<AugmentChoice> draw_auto_augment(Rng& rng, int height, int width) {
  const SubPolicy& policy = imagenet_sub_policies()[rng.randint(0, kImageNetSubPolicies)];
  // torch.rand((2,)): float32 uniforms of 24 bits in [0, 1), compared with the probabilities as
  // float32 (`probs[i] <= p`), so that probability 0 almost never applies and 1 always does.
  const auto uniform_float = [&rng] { return static_cast<float>(rng.next_u64() >> 40) * 0x1p-24f; };
  const float uniforms[2] = {uniform_float(), uniform_float()};
  const bool negative[2] = {rng.randint(0, 2) == 0, rng.randint(0, 2) == 0};  // signs[i] == 0
  std::vector<AugmentChoice> choices;
  for (int i = 0; i < 2; ++i) {
    const AutoAugmentStep& step = policy[i];
    if (!(uniforms[i] <= step.probability)) continue;
    AugmentChoice choice{step.op, 0.0};
    if (step.bin != kNone) {
      choice.magnitude = augment_magnitude(AugmentSpace::kRandAugment, step.op, step.bin,
                                           kAutoAugmentBins, height, width);
    }
    if (has_signed_magnitude(step.op) && negative[i]) choice.magnitude *= -1.0;
    choices.push_back(choice);
  }
  return choices;
}

cv::Mat auto_augment_imagenet(const cv::Mat& rgb, Rng& rng) {
  cv::Mat out = rgb;
  for (const AugmentChoice& choice : draw_auto_augment(rng, rgb.rows, rgb.cols)) {
    out = apply_augment_op(out, choice.op, choice.magnitude);
  }
  return out;
}

}  // namespace xtrain
