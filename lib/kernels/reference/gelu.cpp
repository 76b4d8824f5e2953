#include "lib/kernels/reference/gelu.h"

#include <cmath>

namespace xtrain::kernels::reference {
namespace {

const double kPi = std::acos(-1.0);

double normal_cdf(double v) { return 0.5 * std::erfc(-v / std::sqrt(2.0)); }
double normal_pdf(double v) { return std::exp(-0.5 * v * v) / std::sqrt(2.0 * kPi); }

}  // namespace

void gelu_forward(int64_t n, const float* x, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(x[i] * normal_cdf(x[i]));
}

// d/dx x Phi(x) = Phi(x) + x phi(x).
void gelu_backward(int64_t n, const float* x, const float* dy, float* dx) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    dx[i] = static_cast<float>(dy[i] * (normal_cdf(v) + v * normal_pdf(v)));
  }
}

}  // namespace xtrain::kernels::reference
