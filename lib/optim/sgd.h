// SGD exactly as torch.optim.SGD with dampening 0, over one flat parameter buffer:
//   d = grad + weight_decay * param
//   buf = momentum * buf + d            (buf starts at zero, so the first step gives buf = d)
//   d = nesterov ? d + momentum * buf : buf
//   param -= lr * d
// Weight decay applies to every parameter, BatchNorm and biases included, as the XLA script does.
// The momentum buffer is the optimizer's own, parallel to the parameters.
#pragma once

#include <cstddef>
#include <vector>

#include "lib/optim/state_buffer.h"
#include "lib/parallel/exec.h"
#include "lib/tensor/aligned_buffer.h"

namespace xtrain {

struct SGDOptions {
  float momentum = 0.9f;
  float weight_decay = 1e-4f;
  bool nesterov = false;
};

class SGD {
 public:
  // Over a flat buffer of num_params parameters; the momentum starts at zero.
  SGD(const SGDOptions& options, size_t num_params);
  // The bytes of state an SGD over num_params parameters allocates, without allocating them.
  static size_t state_bytes_for(size_t num_params);

  void step(float* params, const float* grads, float lr, const Exec& ex);

  // Its state as checkpoints save and restore it: the momentum.
  std::vector<StateBuffer> state();
  // Takes the state of an SGD over as many parameters (the replicas of a resumed run).
  void copy_state_from(const SGD& other);

 private:
  SGDOptions options_;
  AlignedBuffer momentum_;
};

}  // namespace xtrain
