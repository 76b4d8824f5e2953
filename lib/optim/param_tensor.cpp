#include "lib/optim/param_tensor.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "lib/base/check.h"

namespace xtrain {

size_t covered_floats(const std::vector<ParamTensor>& tensors) {
  size_t end = 0;
  for (const ParamTensor& t : tensors) {
    XTRAIN_CHECK(t.offset == end && t.size > 0,
                 "parameter tensors must lie end to end: one of {} floats starts at {}, not {}",
                 t.size, t.offset, end);
    end += t.size;
  }
  return end;
}

void for_each_tensor_part(const Exec& ex, const std::vector<ParamTensor>& tensors,
                          const std::function<void(int64_t, int64_t, size_t)>& fn) {
  if (tensors.empty()) return;
  const int64_t n = static_cast<int64_t>(tensors.back().offset + tensors.back().size);
  parallel_for(
      ex, n,
      [&](int64_t begin, int64_t end) {
        // The last tensor starting at or before begin.
        auto t = std::upper_bound(tensors.begin(), tensors.end(), begin,
                                  [](int64_t at, const ParamTensor& p) {
                                    return at < static_cast<int64_t>(p.offset);
                                  }) -
                 1;
        for (int64_t b = begin; b < end; ++t) {
          const int64_t e = std::min(end, static_cast<int64_t>(t->offset + t->size));
          fn(b, e, static_cast<size_t>(t - tensors.begin()));
          b = e;
        }
      },
      /*min_chunk=*/1 << 14);
}

void for_each_tensor(const Exec& ex, const std::vector<ParamTensor>& tensors,
                     const std::function<void(size_t)>& fn) {
  parallel_for(
      ex, static_cast<int64_t>(tensors.size()),
      [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) fn(static_cast<size_t>(i));
      },
      /*min_chunk=*/1);
}

double l2_norm(const float* values, size_t n) {
  const Eigen::Map<const Eigen::ArrayXf> v(values, static_cast<Eigen::Index>(n));
  return std::sqrt(v.cast<double>().square().sum());
}

}  // namespace xtrain
