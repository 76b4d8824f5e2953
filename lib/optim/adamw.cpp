#include "lib/optim/adamw.h"

#include <Eigen/Core>
#include <cmath>

namespace xtrain {

AdamW::AdamW(std::vector<ParamTensor> tensors)
    : Optimizer(std::move(tensors)), exp_avg_(num_params()), exp_avg_sq_(num_params()) {}

void AdamW::step(float* params, const float* grads, float lr, int64_t step, const Exec& ex) {
  const auto beta1 = static_cast<float>(kBeta1), beta2 = static_cast<float>(kBeta2);
  const auto rest1 = static_cast<float>(1 - kBeta1), rest2 = static_cast<float>(1 - kBeta2);
  const double correction1 = 1 - std::pow(kBeta1, static_cast<double>(step));
  const double correction2 = 1 - std::pow(kBeta2, static_cast<double>(step));
  const auto step_size = static_cast<float>(-(double{lr} / correction1));
  const auto root_correction2 = static_cast<float>(std::sqrt(correction2));
  const auto eps = static_cast<float>(kEps);
  for_each_tensor_part(ex, tensors(), [&](int64_t begin, int64_t end, size_t i) {
    const ParamTensor& t = tensors()[i];
    const Eigen::Index n = end - begin;
    Eigen::Map<Eigen::ArrayXf> p(params + begin, n), m(exp_avg_.data() + begin, n),
        v(exp_avg_sq_.data() + begin, n);
    const Eigen::Map<const Eigen::ArrayXf> g(grads + begin, n);
    p *= static_cast<float>(1 - double{lr} * t.weight_decay);
    m = m * beta1 + rest1 * g;
    v = v * beta2 + rest2 * g * g;
    p += step_size * m / (v.sqrt() / root_correction2 + eps);
  });
}

std::vector<StateBuffer> AdamW::state() {
  return {{"exp_avg", exp_avg_.data(), exp_avg_.size()},
          {"exp_avg_sq", exp_avg_sq_.data(), exp_avg_sq_.size()}};
}

}  // namespace xtrain
