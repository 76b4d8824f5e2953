#include "lib/kernels/reference/smooth_activations.h"

#include <cmath>

namespace xtrain::kernels::reference {
namespace {

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

}  // namespace

double silu(double v) { return v * sigmoid(v); }

// d/dv v * sigmoid(v) = sigmoid(v) + v * sigmoid(v) * (1 - sigmoid(v)).
double silu_slope(double v) { return sigmoid(v) + v * sigmoid(v) * (1.0 - sigmoid(v)); }

void silu_forward(int64_t n, const float* x, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(silu(x[i]));
}

void silu_backward(int64_t n, const float* x, const float* dy, float* dx) {
  for (int64_t i = 0; i < n; ++i) dx[i] = static_cast<float>(silu_slope(x[i]) * dy[i]);
}

void sigmoid_forward(int64_t n, const float* x, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(sigmoid(x[i]));
}

void sigmoid_backward(int64_t n, const float* x, const float* dy, float* dx) {
  for (int64_t i = 0; i < n; ++i) {
    const double s = sigmoid(x[i]);
    dx[i] = static_cast<float>(s * (1.0 - s) * dy[i]);
  }
}

}  // namespace xtrain::kernels::reference
