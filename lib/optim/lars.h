// LARS as MLPerf's ResNet-50 reference runs it (its TensorFlow LARSOptimizer over
// ApplyMomentum). For each adapted tensor w with gradient g:
//   trust = eta * |w| / (|g| + weight_decay * |w|)   (1 where |w| or |g| is 0)
//   d = g + weight_decay * w,  lr_w = lr * trust
// and for the others (BatchNorm's and biases, which MLPerf skips) d = g, lr_w = lr; then
//   buf = momentum * buf + d,  w -= lr_w * (nesterov ? d + momentum * buf : buf)
// The norms are summed in double in a fixed order, so every replica finds the same trust. The
// momentum buffer is "momentum_buffer" in checkpoints.
#pragma once

#include <vector>

#include "lib/optim/optimizer.h"
#include "lib/tensor/aligned_buffer.h"

namespace xtrain {

class LARS : public Optimizer {
 public:
  LARS(float momentum, bool nesterov, float trust_coefficient, std::vector<ParamTensor> tensors);

  void step(float* params, const float* grads, float lr, int64_t step, const Exec& ex) override;
  std::vector<StateBuffer> state() override;

 private:
  float momentum_;
  bool nesterov_;
  float trust_coefficient_;
  std::vector<float> tensor_lr_;  // this step's lr_w of each tensor
  AlignedBuffer momentum_buffer_;
};

}  // namespace xtrain
