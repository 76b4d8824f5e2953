// AdamW as torch.optim.AdamW (amsgrad off), element by element, with each operation rounded to
// float32 in torch's order and the step's scalars computed in double as its Python code does:
//   param *= 1 - lr * weight_decay
//   exp_avg = beta1 * exp_avg + (1 - beta1) * grad
//   exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * grad^2
//   param -= lr / (1 - beta1^step) * exp_avg / (sqrt(exp_avg_sq) / sqrt(1 - beta2^step) + eps)
// The moments are "exp_avg" and "exp_avg_sq" in checkpoints.
#pragma once

#include <vector>

#include "lib/optim/optimizer.h"
#include "lib/tensor/aligned_buffer.h"

namespace xtrain {

class AdamW : public Optimizer {
 public:
  static constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8;

  explicit AdamW(std::vector<ParamTensor> tensors);

  void step(float* params, const float* grads, float lr, int64_t step, const Exec& ex) override;
  std::vector<StateBuffer> state() override;

 private:
  AlignedBuffer exp_avg_, exp_avg_sq_;
};

}  // namespace xtrain
