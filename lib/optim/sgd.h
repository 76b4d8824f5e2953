// SGD exactly as torch.optim.SGD with dampening 0, element by element over the flat buffer:
//   d = grad + weight_decay * param
//   buf = momentum * buf + d            (buf starts at zero, so the first step gives buf = d)
//   d = nesterov ? d + momentum * buf : buf
//   param -= lr * d
// Each tensor takes its own weight decay (the XLA script's recipe decays every parameter,
// BatchNorm and biases included). The momentum buffer is "momentum_buffer" in checkpoints.
#pragma once

#include <vector>

#include "lib/optim/optimizer.h"
#include "lib/tensor/aligned_buffer.h"

namespace xtrain {

class SGD : public Optimizer {
 public:
  SGD(float momentum, bool nesterov, std::vector<ParamTensor> tensors);

  void step(float* params, const float* grads, float lr, int64_t step, const Exec& ex) override;
  std::vector<StateBuffer> state() override;

 private:
  float momentum_;
  bool nesterov_;
  AlignedBuffer momentum_buffer_;
};

}  // namespace xtrain
