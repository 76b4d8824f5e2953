#include "data/dirichlet.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lib/base/check.h"

namespace xtrain {
namespace {

// Uniform in (0, 1]: a logarithm's argument.
double uniform_open_at_zero(Rng& rng) { return 1.0 - rng.uniform(); }

double standard_normal(Rng& rng) {  // Box-Muller, one of the pair
  const double radius = std::sqrt(-2.0 * std::log(uniform_open_at_zero(rng)));
  return radius * std::cos(2.0 * M_PI * rng.uniform());
}

}  // namespace

double sample_gamma(double shape, Rng& rng) {
  XTRAIN_CHECK(shape > 0, "sample_gamma: shape {} is not positive", shape);
  double boost = 1.0;
  if (shape < 1.0) {  // Gamma(a) = Gamma(a + 1) * U^(1/a)
    boost = std::pow(uniform_open_at_zero(rng), 1.0 / shape);
    shape += 1.0;
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = standard_normal(rng);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = uniform_open_at_zero(rng);
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v * boost;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v * boost;
  }
}

std::vector<float> sample_dirichlet(double alpha, int n, Rng& rng) {
  XTRAIN_CHECK(n >= 1, "sample_dirichlet: {} weights", n);
  std::vector<double> gammas(n);
  double sum = 0;
  for (double& g : gammas) {
    g = std::max(std::numeric_limits<double>::min(), sample_gamma(alpha, rng));
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
