#include "lib/optim/lars.h"

#include <Eigen/Core>

namespace xtrain {

LARS::LARS(float momentum, bool nesterov, float trust_coefficient, std::vector<ParamTensor> tensors)
    : Optimizer(std::move(tensors)),
      momentum_(momentum),
      nesterov_(nesterov),
      trust_coefficient_(trust_coefficient),
      tensor_lr_(Optimizer::tensors().size()),
      momentum_buffer_(num_params()) {}

void LARS::step(float* params, const float* grads, float lr, int64_t, const Exec& ex) {
  for_each_tensor(ex, tensors(), [&](size_t i) {
    const ParamTensor& t = tensors()[i];
    double trust = 1.0;
    if (t.adapted) {
      const double w = l2_norm(params + t.offset, t.size), g = l2_norm(grads + t.offset, t.size);
      if (w > 0 && g > 0) trust = trust_coefficient_ * w / (g + double{t.weight_decay} * w);
    }
    tensor_lr_[i] = static_cast<float>(lr * trust);
  });
  const float mu = momentum_;
  for_each_tensor_part(ex, tensors(), [&](int64_t begin, int64_t end, size_t i) {
    const ParamTensor& t = tensors()[i];
    const Eigen::Index n = end - begin;
    Eigen::Map<Eigen::ArrayXf> p(params + begin, n), buf(momentum_buffer_.data() + begin, n);
    const Eigen::Map<const Eigen::ArrayXf> g(grads + begin, n);
    const float decay = t.adapted ? t.weight_decay : 0.0f;
    const float tensor_lr = tensor_lr_[i];
    const auto d = g + decay * p;  // an expression: read where it is used, before p changes
    buf = mu * buf + d;
    if (nesterov_) {
      p -= tensor_lr * (d + mu * buf);
    } else {
      p -= tensor_lr * buf;
    }
  });
}

std::vector<StateBuffer> LARS::state() {
  return {{"momentum_buffer", momentum_buffer_.data(), momentum_buffer_.size()}};
}

}  // namespace xtrain
