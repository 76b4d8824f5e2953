#include "lib/train/batch_mix.h"

#include <algorithm>
#include <cmath>

#include "data/random_variates.h"
#include "lib/base/check.h"

namespace xtrain {
namespace {

// Elements mixed a piece at a time, the last image's piece kept aside on the stack.
constexpr int64_t kPiece = 1024;

// Elements [begin, end) of every image i take mixed(own, previous image's), the first image
// taking the last one's, in place: images go from the last to the first, so each reads its
// predecessor before it changes.
template <typename T, typename Mixed>
void roll_mix(T* images, int n, int64_t image, int64_t begin, int64_t end, Mixed mixed) {
  float last[kPiece];
  for (int64_t b = begin; b < end; b += kPiece) {
    const int64_t e = std::min(end, b + kPiece);
    for (int64_t j = b; j < e; ++j) last[j - b] = value(images + (n - 1) * image + j);
    for (int i = n - 1; i >= 0; --i) {
      T* own = images + i * image;
      for (int64_t j = b; j < e; ++j) {
        const float previous = i > 0 ? value(own - image + j) : last[j - b];
        store(mixed(value(own + j), previous), own + j);
      }
    }
  }
}

template <typename T>
void mix_typed(const BatchMix& mix, T* images, int n, int height, int width, int channels) {
  const int64_t row = int64_t{width} * channels, image = height * row;
  if (!mix.cutmix) {
    // torch's batch.mul_(lambda).add_(rolled.mul_(1 - lambda)), both factors rounded to float.
    const float own = mix.lambda, other = static_cast<float>(1.0 - double{mix.lambda});
    roll_mix(images, n, image, 0, image,
             [&](float x, float previous) { return x * own + previous * other; });
    return;
  }
  for (int y = mix.y0; y < mix.y1; ++y) {
    roll_mix(images, n, image, y * row + int64_t{mix.x0} * channels,
             y * row + int64_t{mix.x1} * channels, [](float, float previous) { return previous; });
  }
}

}  // namespace

BatchMix draw_batch_mix(const BatchMixOptions& o, Rng& rng, int height, int width) {
  XTRAIN_CHECK(o.enabled(), "draw_batch_mix needs --mixup_alpha or --cutmix_alpha");
  const bool cutmix = o.mixup_alpha <= 0.0f || (o.cutmix_alpha > 0.0f && rng.uniform() < 0.5);
  const double alpha = cutmix ? o.cutmix_alpha : o.mixup_alpha;
  const double lambda = beta(rng, alpha, alpha);
  if (!cutmix) {
    BatchMix mix;
    mix.lambda = static_cast<float>(lambda);
    return mix;
  }
  const int cx = static_cast<int>(rng.randint(0, width));
  const int cy = static_cast<int>(rng.randint(0, height));
  return cutmix_at(lambda, cx, cy, height, width);
}

BatchMix cutmix_at(double lambda, int cx, int cy, int height, int width) {
  BatchMix mix;
  mix.cutmix = true;
  const double r = 0.5 * std::sqrt(1.0 - lambda);
  const int half_w = static_cast<int>(r * width), half_h = static_cast<int>(r * height);
  mix.x0 = std::max(cx - half_w, 0);
  mix.y0 = std::max(cy - half_h, 0);
  mix.x1 = std::min(cx + half_w, width);
  mix.y1 = std::min(cy + half_h, height);
  const double box = double(mix.x1 - mix.x0) * (mix.y1 - mix.y0);
  mix.lambda = static_cast<float>(1.0 - box / (static_cast<double>(width) * height));
  return mix;
}

void mix_batch(const BatchMix& mix, Elements images, int n, int height, int width, int channels) {
  with_typed(images, [&](auto* typed) { mix_typed(mix, typed, n, height, width, channels); });
}

}  // namespace xtrain
