#include "lib/optim/grad_clip.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>

namespace xtrain {

double GradNormClip::clip(float* grads, const std::vector<ParamTensor>& tensors, const Exec& ex) {
  squares_.resize(tensors.size());
  for_each_tensor(ex, tensors, [&](size_t i) {
    const double norm = l2_norm(grads + tensors[i].offset, tensors[i].size);
    squares_[i] = norm * norm;
  });
  double sum = 0.0;
  for (double s : squares_) sum += s;
  const double total = std::sqrt(sum);
  const auto scale = static_cast<float>(std::min(1.0, max_norm_ / (total + 1e-6)));
  if (scale < 1.0f) {
    for_each_tensor_part(ex, tensors, [&](int64_t begin, int64_t end, size_t) {
      Eigen::Map<Eigen::ArrayXf>(grads + begin, end - begin) *= scale;
    });
  }
  return total;
}

}  // namespace xtrain
