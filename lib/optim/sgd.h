// SGD exactly as torch.optim.SGD with dampening 0, over one flat parameter buffer:
//   d = grad + weight_decay * param
//   buf = momentum * buf + d            (buf starts at zero, so the first step gives buf = d)
//   d = nesterov ? d + momentum * buf : buf
//   param -= lr * d
// Weight decay applies to every parameter, BatchNorm and biases included, as the XLA script does.
#pragma once

#include <cstddef>

#include "lib/parallel/exec.h"

namespace xtrain {

struct SGDOptions {
  float momentum = 0.9f;
  float weight_decay = 1e-4f;
  bool nesterov = false;
};

class SGD {
 public:
  explicit SGD(const SGDOptions& options);

  void step(size_t n, float* params, const float* grads, float* momentum_buffer, float lr,
            const Exec& ex) const;

 private:
  SGDOptions options_;
};

}  // namespace xtrain
