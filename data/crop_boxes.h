// crop_boxes: the geometry of torchvision's transforms, as pure functions of image sizes and
// random draws: which box RandomResizedCrop, CenterCrop and RandomCrop take, and the size
// Resize(int) gives. Python's round() (half to even) is reproduced where torchvision uses it.
// Not here: the pixels (resize_image.h, transforms.h).
#pragma once

#include "data/resize_image.h"
#include "data/rng.h"

namespace xtrain {

struct Size2d {
  int height = 0;
  int width = 0;
};

// RandomResizedCrop.get_params with scale (0.08, 1) and ratio (3/4, 4/3): up to 10 draws of an
// area fraction (uniform) and an aspect ratio (log-uniform) whose box fits, at a uniform
// position; else the center crop clamped to the ratio range.
Box random_resized_crop_box(int height, int width, Rng& rng);

// CenterCrop's box of crop_height x crop_width in a height x width image (the crop fits).
Box center_crop_box(int height, int width, int crop_height, int crop_width);

// RandomCrop's box of size x size at a uniform position in a height x width image (it fits).
Box random_crop_box(int height, int width, int size, Rng& rng);

// The shorter side the test transform resizes to before a center crop of size x size:
// round(size / 0.875), torchvision's crop_pct of its presets (256 for 224, 342 for Inception's
// 299).
int test_resize_side(int size);

// Resize(shorter_side)'s output size: the shorter side becomes shorter_side, the longer one keeps
// the aspect ratio, rounded down.
Size2d resized_shorter_side(int height, int width, int shorter_side);

}  // namespace xtrain
