#include "data/crop_boxes.h"

#include <cmath>

namespace xtrain {
namespace {

constexpr double kMinScale = 0.08, kMaxScale = 1.0;
constexpr double kMinRatio = 3.0 / 4.0, kMaxRatio = 4.0 / 3.0;
constexpr int kAttempts = 10;

// Python's int(round(x)): to the nearest integer, halves to even (the default rounding mode).
int round_half_even(double x) { return static_cast<int>(std::nearbyint(x)); }

}  // namespace

Box random_resized_crop_box(int height, int width, Rng& rng) {
  const double area = static_cast<double>(height) * width;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    const double target_area = area * rng.uniform(kMinScale, kMaxScale);
    const double aspect_ratio = std::exp(rng.uniform(std::log(kMinRatio), std::log(kMaxRatio)));
    const int w = round_half_even(std::sqrt(target_area * aspect_ratio));
    const int h = round_half_even(std::sqrt(target_area / aspect_ratio));
    if (0 < w && w <= width && 0 < h && h <= height) {
      const int top = static_cast<int>(rng.randint(0, height - h + 1));
      const int left = static_cast<int>(rng.randint(0, width - w + 1));
      return {top, left, h, w};
    }
  }
  // Fallback: the whole image, narrowed to the nearest allowed aspect ratio, centered.
  const double in_ratio = static_cast<double>(width) / height;
  int w = width, h = height;
  if (in_ratio < kMinRatio) {
    h = round_half_even(w / kMinRatio);
  } else if (in_ratio > kMaxRatio) {
    w = round_half_even(h * kMaxRatio);
  }
  return {(height - h) / 2, (width - w) / 2, h, w};
}

Box center_crop_box(int height, int width, int crop_height, int crop_width) {
  return {round_half_even((height - crop_height) / 2.0),
          round_half_even((width - crop_width) / 2.0), crop_height, crop_width};
}

Box random_crop_box(int height, int width, int size, Rng& rng) {
  const int top = static_cast<int>(rng.randint(0, height - size + 1));
  const int left = static_cast<int>(rng.randint(0, width - size + 1));
  return {top, left, size, size};
}

int test_resize_side(int size) {
  // size / 0.875 = size * 8 / 7 is never halfway between integers, so rounding half up is
  // Python's round().
  return (size * 16 + 7) / 14;
}

Size2d resized_shorter_side(int height, int width, int shorter_side) {
  // torchvision: int(size * long / short), a true division, then truncated.
  if (width <= height) {
    return {static_cast<int>(static_cast<double>(shorter_side) * height / width), shorter_side};
  }
  return {shorter_side, static_cast<int>(static_cast<double>(shorter_side) * width / height)};
}

}  // namespace xtrain
