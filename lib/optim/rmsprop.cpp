#include "lib/optim/rmsprop.h"

#include <Eigen/Core>

namespace xtrain {

RMSprop::RMSprop(float momentum, std::vector<ParamTensor> tensors)
    : Optimizer(std::move(tensors)),
      momentum_(momentum),
      square_avg_(num_params()),
      momentum_buffer_(momentum > 0.0f ? num_params() : 0) {}

void RMSprop::step(float* params, const float* grads, float lr, int64_t, const Exec& ex) {
  const auto alpha = static_cast<float>(kAlpha), rest = static_cast<float>(1 - kAlpha);
  const auto eps = static_cast<float>(kEps);
  for_each_tensor_part(ex, tensors(), [&](int64_t begin, int64_t end, size_t i) {
    const ParamTensor& t = tensors()[i];
    const Eigen::Index n = end - begin;
    Eigen::Map<Eigen::ArrayXf> p(params + begin, n), sq(square_avg_.data() + begin, n);
    const Eigen::Map<const Eigen::ArrayXf> g(grads + begin, n);
    const auto d =
        g + t.weight_decay * p;  // an expression: read where it is used, before p changes
    sq = sq * alpha + rest * d * d;
    if (momentum_ > 0.0f) {
      Eigen::Map<Eigen::ArrayXf> buf(momentum_buffer_.data() + begin, n);
      buf = buf * momentum_ + d / (sq.sqrt() + eps);
      p -= lr * buf;
    } else {
      p -= lr * d / (sq.sqrt() + eps);
    }
  });
}

std::vector<StateBuffer> RMSprop::state() {
  std::vector<StateBuffer> state = {{"square_avg", square_avg_.data(), square_avg_.size()}};
  if (momentum_ > 0.0f)
    state.push_back({"momentum_buffer", momentum_buffer_.data(), momentum_buffer_.size()});
  return state;
}

}  // namespace xtrain
