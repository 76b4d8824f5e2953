#include "lib/optim/sgd.h"

#include <Eigen/Core>

namespace xtrain {

SGD::SGD(float momentum, bool nesterov, std::vector<ParamTensor> tensors)
    : Optimizer(std::move(tensors)),
      momentum_(momentum),
      nesterov_(nesterov),
      momentum_buffer_(num_params()) {}

void SGD::step(float* params, const float* grads, float lr, int64_t, const Exec& ex) {
  const float mu = momentum_;
  for_each_tensor_part(ex, tensors(), [&](int64_t begin, int64_t end, size_t i) {
    const ParamTensor& t = tensors()[i];
    Eigen::Map<Eigen::ArrayXf> p(params + begin, end - begin);
    Eigen::Map<Eigen::ArrayXf> buf(momentum_buffer_.data() + begin, end - begin);
    const Eigen::Map<const Eigen::ArrayXf> g(grads + begin, end - begin);
    const auto d =
        g + t.weight_decay * p;  // an expression: read where it is used, before p changes
    if (mu == 0.0f) {
      p -= lr * d;
    } else if (!nesterov_) {
      buf = mu * buf + d;
      p -= lr * buf;
    } else {
      buf = mu * buf + d;
      p -= lr * (d + mu * buf);
    }
  });
}

std::vector<StateBuffer> SGD::state() {
  return {{"momentum_buffer", momentum_buffer_.data(), momentum_buffer_.size()}};
}

}  // namespace xtrain
