// LAMB as You et al. 2019 define it (Algorithm 2, the scaling function the identity), over Adam's
// moments with bias correction:
//   m = beta1 * m + (1 - beta1) * g,  v = beta2 * v + (1 - beta2) * g^2
//   u = (m / (1 - beta1^step)) / (sqrt(v / (1 - beta2^step)) + eps) + weight_decay * w
//   w -= lr * trust * u,  trust = |w| / |u| per adapted tensor (1 where either is 0, and for
//   BatchNorm's and biases)
// at the paper's beta1 0.9, beta2 0.999, eps 1e-6. The norms are summed in double in a fixed
// order, so every replica finds the same trust. The moments are "exp_avg" and "exp_avg_sq" in
// checkpoints.
#pragma once

#include <vector>

#include "lib/optim/optimizer.h"
#include "lib/tensor/aligned_buffer.h"

namespace xtrain {

class LAMB : public Optimizer {
 public:
  static constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-6;

  explicit LAMB(std::vector<ParamTensor> tensors);

  void step(float* params, const float* grads, float lr, int64_t step, const Exec& ex) override;
  std::vector<StateBuffer> state() override;

 private:
  std::vector<float> tensor_lr_;  // this step's lr * trust of each tensor
  AlignedBuffer exp_avg_, exp_avg_sq_;
};

}  // namespace xtrain
