#include "lib/kernels/reference/activations.h"

#include <algorithm>
#include <cmath>

namespace xtrain::kernels::reference {
namespace {

double logistic(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// The standard normal distribution's cdf and density (GELU's Phi and phi).
double normal_cdf(double v) { return 0.5 * std::erfc(-v / std::sqrt(2.0)); }
double normal_pdf(double v) { return std::exp(-0.5 * v * v) / std::sqrt(2.0 * std::acos(-1.0)); }

}  // namespace

double activation(Activation a, double v) {
  switch (a) {
    case Activation::kNone:
      return v;
    case Activation::kReLU:
      return std::max(v, 0.0);
    case Activation::kReLU6:
      return std::clamp(v, 0.0, 6.0);
    case Activation::kHardswish:
      return v <= -3.0 ? 0.0 : v >= 3.0 ? v : v * (v + 3.0) / 6.0;
    case Activation::kHardsigmoid:
      return std::clamp(v / 6.0 + 0.5, 0.0, 1.0);
    case Activation::kSiLU:
      return v * logistic(v);
    case Activation::kSigmoid:
      return logistic(v);
    case Activation::kGELU:
      return v * normal_cdf(v);
  }
  return v;
}

double activation_slope(Activation a, double v) {
  switch (a) {
    case Activation::kNone:
      return 1.0;
    case Activation::kReLU:
      return v > 0.0 ? 1.0 : 0.0;
    case Activation::kReLU6:
      return v > 0.0 && v < 6.0 ? 1.0 : 0.0;
    case Activation::kHardswish:
      return v < -3.0 ? 0.0 : v < 3.0 ? (2.0 * v + 3.0) / 6.0 : 1.0;
    case Activation::kHardsigmoid:
      return v > -3.0 && v < 3.0 ? 1.0 / 6.0 : 0.0;
    case Activation::kSiLU:
      // d/dv v * sigmoid(v) = sigmoid(v) + v * sigmoid(v) * (1 - sigmoid(v)).
      return logistic(v) + v * logistic(v) * (1.0 - logistic(v));
    case Activation::kSigmoid:
      return logistic(v) * (1.0 - logistic(v));
    case Activation::kGELU:
      return normal_cdf(v) + v * normal_pdf(v);  // d/dv v Phi(v)
  }
  return 1.0;
}

void activation_forward(Activation a, int64_t n, const float* x, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(activation(a, x[i]));
}

void activation_backward(Activation a, int64_t n, const float* x, const float* dy, float* dx) {
  for (int64_t i = 0; i < n; ++i) dx[i] = static_cast<float>(activation_slope(a, x[i]) * dy[i]);
}

}  // namespace xtrain::kernels::reference
