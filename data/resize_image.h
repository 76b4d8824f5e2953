// resize_image: PIL's resize of an 8-bit RGB image with nearest, bilinear or bicubic
// interpolation, which is what torchvision's Resize and RandomResizedCrop do to PIL images.
// Bilinear and bicubic are PIL's separable convolutions (ImagingResample): the filter (a triangle
// reaching 1 pixel, or Keys' cubic with a = -0.5 reaching 2) is widened by the scale factor when
// shrinking (antialiasing: every input pixel counts, unlike OpenCV's INTER_LINEAR), rows are
// filtered first and rounded to 8 bits, then columns, in PIL's fixed-point arithmetic, so the
// pixels equal PIL's. Nearest is PIL's scaling transform: each output pixel takes the input pixel
// under its centre, stepping along in doubles as PIL does. Only a window of the result is
// computed, which is how a resize followed by a center crop costs no more than the crop.
// Not here: choosing sizes and boxes (crop_boxes.h).
#pragma once

#include <opencv2/core.hpp>
#include <string>

namespace xtrain {

// A rectangle of pixels: top row, left column, height, width (torchvision's i, j, h, w).
struct Box {
  int top = 0;
  int left = 0;
  int height = 0;
  int width = 0;
};

// torchvision's InterpolationMode, as --interpolation names it.
enum class Interpolation { kNearest, kBilinear, kBicubic };

// "nearest", "bilinear" or "bicubic"; throws xtrain::Error naming --interpolation otherwise.
Interpolation interpolation_from_name(const std::string& name);
const char* interpolation_name(Interpolation interpolation);

// Resizes `src` (8-bit RGB, possibly a view of a crop) to out_height x out_width and returns the
// `window` of that result (a window.height x window.width 8-bit RGB image).
cv::Mat resize_image(const cv::Mat& src, int out_height, int out_width, const Box& window,
                     Interpolation interpolation);

}  // namespace xtrain
