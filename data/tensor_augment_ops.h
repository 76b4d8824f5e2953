// tensor_augment_ops: the operations of torchvision's _apply_op as it runs them on uint8 tensor
// images, AugMix's path (AugMix turns a PIL image into a tensor before its chains), with
// bilinear interpolation (AugMix's default): the geometry through tensor_affine.h, the
// enhancements as functional_tensor's float32 blends ratio * image + (1 - ratio) * degenerate,
// clamped and truncated, AutoContrast in float32. Posterize, Solarize, Equalize and Invert give
// the same pixels as PIL's (augment_ops.h), which they reuse.
// Not here: PIL's pixels, which the other policies get (augment_ops.h); which operation to draw
// (augmix.h).
#pragma once

#include <opencv2/core.hpp>

#include "data/augment_ops.h"

namespace xtrain {

// `rgb` (8-bit RGB) transformed by `op` at the signed `magnitude`, as _apply_op transforms a
// uint8 tensor with interpolation BILINEAR and fill None. The result has the input's size.
// Contrast's mean is exact up to images of 2^24 / 255 pixels (torch sums the gray values in
// float32; beyond, its sum may round otherwise).
cv::Mat apply_tensor_augment_op(const cv::Mat& rgb, AugmentOp op, double magnitude);

}  // namespace xtrain
