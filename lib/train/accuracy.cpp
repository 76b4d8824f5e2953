#include "lib/train/accuracy.h"

namespace xtrain {

int64_t count_top_k_correct(const float* logits, const int32_t* labels, int n, int classes, int k) {
  int64_t correct = 0;
  for (int i = 0; i < n; ++i) {
    const float* row = logits + int64_t{i} * classes;
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

}  // namespace xtrain
