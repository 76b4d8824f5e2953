// pil_affine: PIL's nearest-neighbour geometry on 8-bit RGB images, to the pixel:
// Image.transform(size, AFFINE, matrix, NEAREST) and Image.rotate(angle, NEAREST), as
// torchvision's affine() and rotate() call them on PIL images. Output pixel (x, y) takes the input
// pixel under the matrix's image of its centre (a0 (x + 0.5) + a1 (y + 0.5) + a2,
// a3 (x + 0.5) + a4 (y + 0.5) + a5), truncated; where that falls outside the input it is 0
// (torchvision's fill=None). The output has the input's size.
// Not here: which matrix an operation wants (augment_ops.cpp).
#pragma once

#include <opencv2/core.hpp>

#include "data/affine_matrix.h"

namespace xtrain {

// Image.transform(rgb.size, AFFINE, a, NEAREST) with fill 0. As PIL, it steps along each row in
// 16.16 fixed point where every coordinate fits (PIL's affine_fixed), in doubles otherwise, and
// keeps a pure scale-and-shift matrix to one column table (ImagingScaleAffine): each way rounds
// a centre on a pixel boundary its own way, and that decides which pixel it takes.
cv::Mat pil_affine_nearest(const cv::Mat& rgb, const AffineMatrix& a);

// Image.rotate(angle_degrees, NEAREST), counter-clockwise about the image centre (w / 2, h / 2),
// expand=False, fill 0. Multiples of 90 degrees that keep the size are PIL's exact transposes.
cv::Mat pil_rotate_nearest(const cv::Mat& rgb, double angle_degrees);

}  // namespace xtrain
