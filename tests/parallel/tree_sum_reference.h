// An independent statement of the reduction order of lib/parallel/pairwise_sum.h, for tests:
// the sum of values[lo, hi) splits at the largest power of two below the count, recursively.
#pragma once

#include <vector>

namespace xtrain::testing {

inline float tree_sum(const std::vector<float>& values, size_t lo, size_t hi) {
  if (hi - lo == 1) return values[lo];
  size_t half = 1;
  while (half * 2 < hi - lo) half *= 2;
  return tree_sum(values, lo, lo + half) + tree_sum(values, lo + half, hi);
}

// Element i of the result is the tree sum of buffers[0..n)[i].
inline std::vector<float> tree_sum(const std::vector<std::vector<float>>& buffers) {
  std::vector<float> total(buffers[0].size()), column(buffers.size());
  for (size_t i = 0; i < total.size(); ++i) {
    for (size_t r = 0; r < buffers.size(); ++r) column[r] = buffers[r][i];
    total[i] = tree_sum(column, 0, column.size());
  }
  return total;
}

}  // namespace xtrain::testing
