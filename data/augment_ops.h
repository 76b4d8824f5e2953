// augment_ops: the image operations of torchvision's automatic augmentations (_apply_op in
// torchvision/transforms/autoaugment.py) on 8-bit RGB images, giving the pixels torchvision gives
// for a PIL image: the geometry through PIL's nearest-neighbour affine transform and rotate with
// fill 0 (pil_affine.h), the enhancements as PIL's ImageEnhance blends in float, the others as
// ImageOps' lookup tables.
// Not here: which operation and magnitude to draw (trivial_augment.h, rand_augment.h,
// auto_augment.h, augmix.h), AugMix's uint8-tensor pixels (tensor_augment_ops.h).
#pragma once

#include <opencv2/core.hpp>

namespace xtrain {

// In TrivialAugmentWide's order of its augmentation space, then AutoAugment's Invert.
enum class AugmentOp {
  kIdentity,
  kShearX,
  kShearY,
  kTranslateX,
  kTranslateY,
  kRotate,
  kBrightness,
  kColor,
  kContrast,
  kSharpness,
  kPosterize,
  kSolarize,
  kAutoContrast,
  kEqualize,
  kInvert,
};
inline constexpr int kNumAugmentOps = 15;

// An operation and the signed magnitude a policy drew for it.
struct AugmentChoice {
  AugmentOp op = AugmentOp::kIdentity;
  double magnitude = 0;  // signed, as _apply_op takes it
};

// `rgb` (8-bit RGB) transformed by `op` at `magnitude`, the signed value _apply_op takes:
//   ShearX, ShearY    affine shear by atan(magnitude) about the top-left corner
//   TranslateX, -Y    shift by int(magnitude) pixels
//   Rotate            magnitude degrees counter-clockwise about the centre
//   Brightness, Color, Contrast, Sharpness: ImageEnhance's blend with factor 1 + magnitude
//   Posterize         keep the int(magnitude) high bits
//   Solarize          invert the values >= magnitude
//   Identity, AutoContrast, Equalize, Invert: no magnitude
// The result has the input's size.
cv::Mat apply_augment_op(const cv::Mat& rgb, AugmentOp op, double magnitude);

}  // namespace xtrain
