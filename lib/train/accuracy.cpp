#include "lib/train/accuracy.h"

#include <algorithm>
#include <cmath>

namespace xtrain {

bool all_finite(const float* values, int64_t n) {
  return std::all_of(values, values + n, [](float v) { return std::isfinite(v); });
}

bool weights_finite(ParamStore& store) {
  return all_finite(store.params(), static_cast<int64_t>(store.num_params())) &&
         all_finite(store.buffers(), static_cast<int64_t>(store.num_buffers()));
}

int64_t count_top_k_correct(const float* logits, const int32_t* labels, int n, int classes, int k) {
  int64_t correct = 0;
  for (int i = 0; i < n; ++i) {
    const float* row = logits + int64_t{i} * classes;
    if (!all_finite(row, classes)) continue;
    const int label = labels[i];
    const float target = row[label];
    int rank = 0;  // classes ranked before the label
    for (int j = 0; j < classes; ++j) {
      if (row[j] > target || (row[j] == target && j < label)) ++rank;
    }
    if (rank < k) ++correct;
  }
  return correct;
}

int64_t count_nonfinite_rows(const float* logits, int n, int classes) {
  int64_t nonfinite = 0;
  for (int i = 0; i < n; ++i) {
    if (!all_finite(logits + int64_t{i} * classes, classes)) ++nonfinite;
  }
  return nonfinite;
}

}  // namespace xtrain
