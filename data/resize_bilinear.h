// resize_bilinear: PIL's bilinear resize of an 8-bit RGB image, which is what torchvision's
// Resize and RandomResizedCrop do to PIL images. The triangle filter is widened by the scale
// factor when shrinking (antialiasing: every input pixel counts, unlike OpenCV's INTER_LINEAR),
// rows are filtered first and rounded to 8 bits, then columns, in PIL's fixed-point arithmetic,
// so the pixels equal PIL's. Only a window of the result is computed, which is how a resize
// followed by a center crop costs no more than the crop.
// Not here: choosing sizes and boxes (crop_boxes.h).
#pragma once

#include <opencv2/core.hpp>

namespace xtrain {

// A rectangle of pixels: top row, left column, height, width (torchvision's i, j, h, w).
struct Box {
  int top = 0;
  int left = 0;
  int height = 0;
  int width = 0;
};

// Resizes `src` (8-bit RGB, possibly a view of a crop) to out_height x out_width and returns the
// `window` of that result (a window.height x window.width 8-bit RGB image).
cv::Mat resize_bilinear(const cv::Mat& src, int out_height, int out_width, const Box& window);

}  // namespace xtrain
