// GradNormClip: torch.nn.utils.clip_grad_norm_ over a replica's flat gradient buffer, as
// torchvision's --clip-grad-norm applies it after the gradients are all-reduced, so every
// replica clips alike:
//   total = sqrt(sum over tensors of |g_t|^2),  g *= min(1, max_norm / (total + 1e-6))
// The norms are summed in double in a fixed order (torch sums each tensor's in float32), so any
// thread count gives the same bits. It keeps the per-tensor sums between steps: a step allocates
// nothing.
#pragma once

#include <vector>

#include "lib/optim/param_tensor.h"
#include "lib/parallel/exec.h"

namespace xtrain {

class GradNormClip {
 public:
  explicit GradNormClip(float max_norm) : max_norm_(max_norm) {}

  // Clips the gradients of these tensors; returns their total norm before clipping.
  double clip(float* grads, const std::vector<ParamTensor>& tensors, const Exec& ex);

 private:
  float max_norm_;
  std::vector<double> squares_;  // each tensor's squared norm
};

}  // namespace xtrain
