#include "data/random_variates.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lib/base/check.h"

namespace xtrain {

constexpr double kTwoPi = 6.283185307179586;

double normal(Rng& rng) {
  const double u = 1.0 - rng.uniform();  // in (0, 1]: its log is finite
  return std::sqrt(-2.0 * std::log(u)) * std::cos(kTwoPi * rng.uniform());
}

double gamma(Rng& rng, double shape) {
  XTRAIN_CHECK(shape > 0.0 && std::isfinite(shape), "a gamma shape must be > 0, got {}", shape);
  if (shape < 1.0) return gamma(rng, shape + 1.0) * std::pow(1.0 - rng.uniform(), 1.0 / shape);
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    double x, v;
    do {
      x = normal(rng);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = 1.0 - rng.uniform();
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;  // the squeeze: no logarithm
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

double beta(Rng& rng, double a, double b) {
  const double x = gamma(rng, a), y = gamma(rng, b);
  return x / (x + y);
}

std::vector<float> dirichlet(Rng& rng, double alpha, int n) {
  XTRAIN_CHECK(n >= 1, "a Dirichlet draw needs at least one weight, got {}", n);
  std::vector<double> gammas(n);
  double sum = 0;
  for (double& g : gammas) {
    g = std::max(std::numeric_limits<double>::min(), gamma(rng, alpha));
    sum += g;
  }
  const float below_one = std::nextafter(1.0f, 0.0f);
  std::vector<float> weights(n);
  for (int i = 0; i < n; ++i) {
    weights[i] = std::clamp(static_cast<float>(gammas[i] / sum), std::numeric_limits<float>::min(),
                            below_one);
  }
  return weights;
}

}  // namespace xtrain
