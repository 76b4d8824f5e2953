#include "data/noise_samples.h"

#include <cmath>

#include "data/rng.h"
#include "lib/base/check.h"

namespace xtrain {
namespace {

constexpr uint64_t kNoiseStream = 0x6e6f697365ull;  // "noise": apart from the data's other draws
constexpr double kTwoPi = 6.283185307179586476925286766559;

// Sample k's label, then its pixels: standard normals, Box-Muller, both of each pair's normals.
int32_t draw_sample(uint64_t seed, int k, int num_classes, float* pixels, int64_t n) {
  Rng rng({seed, static_cast<uint64_t>(k), kNoiseStream});
  const auto label = static_cast<int32_t>(rng.randint(0, num_classes));
  for (int64_t i = 0; i < n; i += 2) {
    const double radius = std::sqrt(-2.0 * std::log(1.0 - rng.uniform()));  // 1 - u in (0, 1]
    const double angle = kTwoPi * rng.uniform();
    pixels[i] = static_cast<float>(radius * std::cos(angle));
    if (i + 1 < n) pixels[i + 1] = static_cast<float>(radius * std::sin(angle));
  }
  return label;
}

}  // namespace

NoiseSamples::NoiseSamples(int image_size, int num_classes, uint64_t seed)
    : image_size_(image_size),
      image_elements_(int64_t{image_size} * image_size * 3),
      pixels_(kCount * image_elements_),
      labels_(kCount) {
  XTRAIN_CHECK(image_size > 0 && num_classes > 0,
               "NoiseSamples: image size {} and class count {} must be > 0", image_size,
               num_classes);
  for (int k = 0; k < kCount; ++k) {
    labels_[k] =
        draw_sample(seed, k, num_classes, pixels_.data() + k * image_elements_, image_elements_);
  }
}

size_t NoiseSamples::bytes_for(int image_size) {
  return size_t{kCount} * image_size * image_size * 3 * sizeof(float) + kCount * sizeof(int32_t);
}

}  // namespace xtrain
