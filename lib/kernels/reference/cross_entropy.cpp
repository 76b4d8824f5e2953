#include "lib/kernels/reference/cross_entropy.h"

#include <algorithm>
#include <cmath>

namespace xtrain::kernels::reference {
namespace {

// q[n, k], with t the mix of sample n's label and sample n - 1's.
double target(const CrossEntropyShape& s, const int32_t* labels, int n, int k) {
  const int32_t own = labels[n], rolled = labels[n == 0 ? s.n - 1 : n - 1];
  const double t = (k == own ? double{s.mix} : 0.0) + (k == rolled ? 1.0 - s.mix : 0.0);
  return (1.0 - s.label_smoothing) * t + double{s.label_smoothing} / s.classes;
}

}  // namespace

float cross_entropy_forward(const CrossEntropyShape& s, const float* logits, const int32_t* labels,
                            float* probs) {
  double loss = 0.0;
  for (int n = 0; n < s.n; ++n) {
    const float* z = logits + int64_t{n} * s.classes;
    const double z_max = *std::max_element(z, z + s.classes);
    double sum_exp = 0.0;
    for (int k = 0; k < s.classes; ++k) sum_exp += std::exp(z[k] - z_max);
    for (int k = 0; k < s.classes; ++k) {
      const double log_p = z[k] - z_max - std::log(sum_exp);
      probs[int64_t{n} * s.classes + k] = static_cast<float>(std::exp(log_p));
      loss -= target(s, labels, n, k) * log_p;
    }
  }
  return static_cast<float>(loss / s.n);
}

void cross_entropy_backward(const CrossEntropyShape& s, const float* probs, const int32_t* labels,
                            float* dlogits) {
  for (int n = 0; n < s.n; ++n)
    for (int k = 0; k < s.classes; ++k) {
      const int64_t i = int64_t{n} * s.classes + k;
      dlogits[i] = static_cast<float>((probs[i] - target(s, labels, n, k)) / s.n);
    }
}

}  // namespace xtrain::kernels::reference
