#include "lib/kernels/cross_entropy.h"

#include <algorithm>
#include <cmath>

#include "lib/base/check.h"

namespace xtrain::kernels {
namespace {

void check_labels(const CrossEntropyShape& s, const int32_t* labels) {
  for (int i = 0; i < s.n; ++i) {
    XTRAIN_CHECK(labels[i] >= 0 && labels[i] < s.classes,
                 "CrossEntropyLoss: label {} of sample {} is outside [0, {})", labels[i], i,
                 s.classes);
  }
}

// The sample whose label mixes into sample i's: the batch rolled by one.
int rolled(const CrossEntropyShape& s, int i) { return i == 0 ? s.n - 1 : i - 1; }

}  // namespace

// N x K is at most a few hundred thousand floats: one thread, rows in order, so the loss is
// the same whatever the thread count.
float cross_entropy_forward(const CrossEntropyShape& s, const float* logits, const int32_t* labels,
                            float* probs, const Exec& ex) {
  check_labels(s, labels);
  const double eps = s.label_smoothing;
  double total = 0.0;
  for (int i = 0; i < s.n; ++i) {
    const float* z = logits + int64_t{i} * s.classes;
    float* p = probs + int64_t{i} * s.classes;
    const float z_max = *std::max_element(z, z + s.classes);
    double sum_exp = 0.0, sum_z = 0.0;
    for (int k = 0; k < s.classes; ++k) {
      p[k] = std::exp(z[k] - z_max);
      sum_exp += p[k];
      sum_z += z[k];
    }
    const double log_sum_exp = z_max + std::log(sum_exp);
    const float inv_sum = static_cast<float>(1.0 / sum_exp);
    for (int k = 0; k < s.classes; ++k) p[k] *= inv_sum;
    // -sum_k q_k (z_k - lse) with q = (1 - eps) t + eps / K
    const double target_z =
        s.mix == 1.0f ? z[labels[i]]
                      : s.mix * double{z[labels[i]]} + (1.0 - s.mix) * z[labels[rolled(s, i)]];
    total += log_sum_exp - (1.0 - eps) * target_z - eps * sum_z / s.classes;
  }
  return static_cast<float>(total / s.n);
}

void cross_entropy_backward(const CrossEntropyShape& s, const float* probs, const int32_t* labels,
                            float* dlogits, const Exec& ex) {
  check_labels(s, labels);
  const float inv_n = 1.0f / s.n;
  const float smooth = s.label_smoothing / s.classes;
  for (int i = 0; i < s.n; ++i) {
    const float* p = probs + int64_t{i} * s.classes;
    float* d = dlogits + int64_t{i} * s.classes;
    for (int k = 0; k < s.classes; ++k) d[k] = (p[k] - smooth) * inv_n;
    d[labels[i]] -= (1.0f - s.label_smoothing) * s.mix * inv_n;
    if (s.mix != 1.0f)
      d[labels[rolled(s, i)]] -= (1.0f - s.label_smoothing) * (1.0f - s.mix) * inv_n;
  }
}

}  // namespace xtrain::kernels
