// torchvision's _make_divisible(v, divisor) (MobileNetV3, EfficientNet, MNASNet's
// _round_to_multiple_of, RegNet): channel counts scaled by a width multiplier, rounded to the
// nearest multiple of divisor, at least divisor, and one divisor up where rounding lost more than
// 10% of v.
#pragma once

#include <algorithm>

namespace xtrain {

inline int make_divisible(double v, int divisor = 8) {
  int rounded = std::max(divisor, static_cast<int>(v + divisor / 2.0) / divisor * divisor);
  if (rounded < 0.9 * v) rounded += divisor;
  return rounded;
}

}  // namespace xtrain
