// Optimizer: updates a replica's flat parameter buffer from its all-reduced gradients, holding its
// state (momentum, Adam's moments) in flat float32 buffers parallel to the parameters, which
// checkpoints save (StateBuffer). `--opt` picks one, with torchvision's reference-script
// semantics:
//   sgd, sgd_nesterov  torch.optim.SGD (sgd.h)
//   rmsprop            torch.optim.RMSprop, eps 0.0316 and alpha 0.9 as torchvision sets them
//   adamw              torch.optim.AdamW, betas (0.9, 0.999), eps 1e-8
//   lars               MLPerf's LARS (lars.h)
//   lamb               You et al. 2019's LAMB (lamb.h)
// Each replica has its own, fed the same gradients, so all stay bitwise equal.
// Not here: the parameter groups (lib/train/param_groups.h), the learning rate (lr_scheduler.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/optim/param_tensor.h"
#include "lib/optim/state_buffer.h"
#include "lib/parallel/exec.h"

namespace xtrain {

struct OptimizerOptions {
  std::string name = "sgd";  // --opt
  float momentum = 0.9f;     // SGD, RMSprop, LARS
  float weight_decay = 1e-4f;
  // torchvision's parameter groups: the weight decay of norm layers' parameters, of biases and
  // of transformers' embeddings, where given (lib/train/param_groups.h).
  std::optional<float> norm_weight_decay, bias_weight_decay, transformer_embedding_decay;
  bool nesterov = false;             // SGD and LARS; --opt=sgd_nesterov is SGD with it
  float trust_coefficient = 0.001f;  // LARS's eta
};

// The names --opt takes, for its help and errors.
const std::vector<std::string>& optimizer_names();

class Optimizer {
 public:
  virtual ~Optimizer() = default;

  // One update at learning rate lr; `step` counts the updates, this one included (from 1), for
  // Adam's bias corrections.
  virtual void step(float* params, const float* grads, float lr, int64_t step, const Exec& ex) = 0;
  // Its state as checkpoints save and restore it, each buffer a float per parameter.
  virtual std::vector<StateBuffer> state() = 0;
  // Takes the state of an optimizer of the same kind over the same parameters (the replicas of a
  // resumed run).
  void copy_state_from(Optimizer& other);

  // The parameter tensors it steps, end to end over the flat buffer.
  const std::vector<ParamTensor>& tensors() const { return tensors_; }
  size_t num_params() const { return num_params_; }

 protected:
  // Over the flat buffer the tensors cover (checked here, once).
  explicit Optimizer(std::vector<ParamTensor> tensors);

 private:
  std::vector<ParamTensor> tensors_;
  size_t num_params_;
};

// The optimizer options.name says, over the flat buffer the tensors cover; throws naming --opt
// or the flag at fault.
std::unique_ptr<Optimizer> make_optimizer(const OptimizerOptions& options,
                                          std::vector<ParamTensor> tensors);
// The bytes of state that optimizer allocates over num_params parameters, without allocating them.
size_t optimizer_state_bytes(const OptimizerOptions& options, size_t num_params);

}  // namespace xtrain
