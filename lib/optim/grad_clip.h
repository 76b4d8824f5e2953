// clip_grad_norm: torch.nn.utils.clip_grad_norm_ over a replica's flat gradient buffer, as
// torchvision's --clip-grad-norm applies it after the gradients are all-reduced, so every
// replica clips alike:
//   total = sqrt(sum over tensors of |g_t|^2),  g *= min(1, max_norm / (total + 1e-6))
// The norms are summed in double in a fixed order (torch sums each tensor's in float32), so any
// thread count gives the same bits.
#pragma once

#include <vector>

#include "lib/optim/param_tensor.h"
#include "lib/parallel/exec.h"

namespace xtrain {

// Returns the total norm before clipping.
double clip_grad_norm(float* grads, const std::vector<ParamTensor>& tensors, float max_norm,
                      const Exec& ex);

}  // namespace xtrain
