// tensor_affine: torchvision's bilinear geometry on uint8 tensor images, to the pixel:
// functional_tensor.affine and rotate (expand=False, fill None) with interpolation "bilinear", on
// 8-bit RGB. As torch, in float32: the grid of output pixel centres relative to the image centre,
// (x, y, 1) times the matrix over half the image's sides (netlib BLAS's sgemm order, no fused
// multiply-add), then grid_sample (align_corners=False, zero padding) as ATen's AVX2 kernel
// computes it (its compiler fused some multiplies and adds), rounded half to even.
// Not here: which matrix an operation wants (tensor_augment_ops.cpp), PIL's nearest geometry
// (pil_affine.h).
#pragma once

#include <opencv2/core.hpp>

#include "data/affine_matrix.h"

namespace xtrain {

// `rgb` resampled through `a` (output to input, centred coordinates: torchvision's tensor
// convention), the output the input's size.
cv::Mat tensor_affine_bilinear(const cv::Mat& rgb, const AffineMatrix& a);

}  // namespace xtrain
