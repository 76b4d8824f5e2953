#include "data/random_erasing.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace xtrain {
namespace {

constexpr int kChannels = 3;
constexpr int kAttempts = 10;
constexpr double kScaleMin = 0.02, kScaleMax = 0.33;
constexpr double kRatioMin = 0.3, kRatioMax = 3.3;

}  // namespace

EraseBox random_erasing_box(int height, int width, double p, Rng& rng) {
  if (!(rng.uniform() < p)) return {};
  const double area = static_cast<double>(height) * width;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    const double erase_area = area * rng.uniform(kScaleMin, kScaleMax);
    const double aspect_ratio = std::exp(rng.uniform(std::log(kRatioMin), std::log(kRatioMax)));
    // Python's round(): half to even, which nearbyint gives in the default rounding mode.
    const int h = static_cast<int>(std::nearbyint(std::sqrt(erase_area * aspect_ratio)));
    const int w = static_cast<int>(std::nearbyint(std::sqrt(erase_area / aspect_ratio)));
    if (!(h < height && w < width)) continue;
    EraseBox box;
    box.top = static_cast<int>(rng.randint(0, height - h + 1));
    box.left = static_cast<int>(rng.randint(0, width - w + 1));
    box.height = h;
    box.width = w;
    box.image_width = width;
    return box;
  }
  return {};
}

void erase_box(const EraseBox& box, Elements image) {
  if (box.empty()) return;
  with_typed(image, [&](auto* pixels) {
    using Element = std::remove_pointer_t<decltype(pixels)>;
    for (int y = box.top; y < box.top + box.height; ++y) {
      auto* row = pixels + (int64_t{y} * box.image_width + box.left) * kChannels;
      std::fill_n(row, int64_t{box.width} * kChannels, Element{});  // +0 in either type
    }
  });
}

}  // namespace xtrain
