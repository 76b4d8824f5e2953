// RMSprop as torch.optim.RMSprop (not centered), element by element with each operation rounded
// to float32 in torch's order, at torchvision's eps 0.0316 and alpha 0.9:
//   d = grad + weight_decay * param
//   square_avg = alpha * square_avg + (1 - alpha) * d^2
//   with momentum: buf = momentum * buf + d / (sqrt(square_avg) + eps), param -= lr * buf
//   without:       param -= lr * d / (sqrt(square_avg) + eps)
// The state is "square_avg", and "momentum_buffer" when there is momentum, in checkpoints.
#pragma once

#include <vector>

#include "lib/optim/optimizer.h"
#include "lib/tensor/aligned_buffer.h"

namespace xtrain {

class RMSprop : public Optimizer {
 public:
  static constexpr double kAlpha = 0.9, kEps = 0.0316;

  RMSprop(float momentum, std::vector<ParamTensor> tensors);

  void step(float* params, const float* grads, float lr, int64_t step, const Exec& ex) override;
  std::vector<StateBuffer> state() override;

 private:
  float momentum_;
  AlignedBuffer square_avg_, momentum_buffer_;  // the latter empty without momentum
};

}  // namespace xtrain
