#include "lib/kernels/reference/hard_activations.h"

#include <algorithm>

namespace xtrain::kernels::reference {

double hardswish(double v) { return v <= -3.0 ? 0.0 : v >= 3.0 ? v : v * (v + 3.0) / 6.0; }

void hardswish_forward(int64_t n, const float* x, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(hardswish(x[i]));
}

// The derivative from the right at the kinks, as the fast kernel.
void hardswish_backward(int64_t n, const float* x, const float* dy, float* dx) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    const double slope = v < -3.0 ? 0.0 : v < 3.0 ? (2.0 * v + 3.0) / 6.0 : 1.0;
    dx[i] = static_cast<float>(slope * dy[i]);
  }
}

void hardsigmoid_forward(int64_t n, const float* x, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(std::clamp(x[i] / 6.0 + 0.5, 0.0, 1.0));
}

void hardsigmoid_backward(int64_t n, const float* x, const float* dy, float* dx) {
  for (int64_t i = 0; i < n; ++i) {
    dx[i] = x[i] > -3.0f && x[i] < 3.0f ? static_cast<float>(dy[i] / 6.0) : 0.0f;
  }
}

}  // namespace xtrain::kernels::reference
