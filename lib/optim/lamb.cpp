#include "lib/optim/lamb.h"

#include <Eigen/Core>
#include <cmath>

namespace xtrain {
namespace {

// The bias corrections of a step, as float32 factors.
struct Corrections {
  float first, second;  // 1 / (1 - beta^step)
};

// u over maps of the moments and the parameters, an expression the caller evaluates while the
// maps live.
template <typename Map>
auto update_of(const Map& m, const Map& v, const Map& w, const Corrections& c, float weight_decay) {
  return (m * c.first) / ((v * c.second).sqrt() + static_cast<float>(LAMB::kEps)) +
         weight_decay * w;
}

}  // namespace

LAMB::LAMB(std::vector<ParamTensor> tensors)
    : Optimizer(std::move(tensors)),
      tensor_lr_(Optimizer::tensors().size()),
      exp_avg_(num_params()),
      exp_avg_sq_(num_params()) {}

void LAMB::step(float* params, const float* grads, float lr, int64_t step, const Exec& ex) {
  const auto beta1 = static_cast<float>(kBeta1), beta2 = static_cast<float>(kBeta2);
  const auto rest1 = static_cast<float>(1 - kBeta1), rest2 = static_cast<float>(1 - kBeta2);
  const Corrections c{static_cast<float>(1 / (1 - std::pow(kBeta1, static_cast<double>(step)))),
                      static_cast<float>(1 / (1 - std::pow(kBeta2, static_cast<double>(step))))};
  float* m = exp_avg_.data();
  float* v = exp_avg_sq_.data();
  for_each_tensor_part(ex, tensors(), [&](int64_t begin, int64_t end, size_t) {
    const Eigen::Index n = end - begin;
    Eigen::Map<Eigen::ArrayXf> mm(m + begin, n), vv(v + begin, n);
    const Eigen::Map<const Eigen::ArrayXf> g(grads + begin, n);
    mm = mm * beta1 + rest1 * g;
    vv = vv * beta2 + rest2 * g * g;
  });
  for_each_tensor(ex, tensors(), [&](size_t i) {
    const ParamTensor& t = tensors()[i];
    double trust = 1.0;
    if (t.adapted) {
      const auto n = static_cast<Eigen::Index>(t.size);
      const Eigen::Map<const Eigen::ArrayXf> mm(m + t.offset, n), vv(v + t.offset, n),
          w(params + t.offset, n);
      const double u_norm =
          std::sqrt(update_of(mm, vv, w, c, t.weight_decay).cast<double>().square().sum());
      const double w_norm = l2_norm(params + t.offset, t.size);
      if (w_norm > 0 && u_norm > 0) trust = w_norm / u_norm;
    }
    tensor_lr_[i] = static_cast<float>(lr * trust);
  });
  for_each_tensor_part(ex, tensors(), [&](int64_t begin, int64_t end, size_t i) {
    const ParamTensor& t = tensors()[i];
    const Eigen::Index n = end - begin;
    const Eigen::Map<const Eigen::ArrayXf> mm(m + begin, n), vv(v + begin, n), w(params + begin, n);
    Eigen::Map<Eigen::ArrayXf> p(params + begin, n);  // w's elements: each read before written
    p -= tensor_lr_[i] * update_of(mm, vv, w, c, t.weight_decay);
  });
}

std::vector<StateBuffer> LAMB::state() {
  return {{"exp_avg", exp_avg_.data(), exp_avg_.size()},
          {"exp_avg_sq", exp_avg_sq_.data(), exp_avg_sq_.size()}};
}

}  // namespace xtrain
