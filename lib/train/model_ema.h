// ModelEma: torchvision's --model_ema (references/classification/utils.py ExponentialMovingAverage,
// a torch.optim.swa_utils.AveragedModel with use_buffers=True): a copy of the model's parameters,
// buffers and counters that every --model_ema_steps batches moves towards the model's,
//   avg = decay * avg + (1 - decay) * model,
// each product in float32 with decay and 1 - decay rounded to float32 as torch does to a Python
// float, and the int64 counters (num_batches_tracked) computed in float32 and truncated, as
// torch's copy_ of a float tensor into an int64 one does. The first update (n_averaged == 0) copies
// the model; during torchvision's LR warmup the count is reset after each update, so it keeps
// copying. The arrays are laid out as the replica's ParamStore, entry for entry, so an evaluation
// swaps them into the replica in place (std::swap_ranges: no memory, no second model or plan) and
// back. Each core keeps its own copy, updated from its own replica: the replicas are bitwise
// equal, so every copy is too, whatever the placement, and no core waits for another.
// Not here: when to update or evaluate (Trainer), the file format (lib/io/checkpoint.h).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "lib/graph/param_store.h"
#include "lib/io/checkpoint.h"
#include "lib/tensor/aligned_buffer.h"

namespace xtrain {

struct ModelEmaOptions {
  bool enabled = false;    // --model_ema
  int steps = 32;          // --model_ema_steps: batches between updates
  double decay = 0.99998;  // --model_ema_decay, before the batch adjustment
};

// torchvision's decay for a global batch of global_batch images (world size x --batch_size) over
// num_epochs epochs: adjust = global_batch * steps / num_epochs,
// alpha = min(1, (1 - decay) * adjust), and the decay used is 1 - alpha. In doubles, as Python's.
double adjusted_ema_decay(const ModelEmaOptions& options, int64_t global_batch, int num_epochs);

class ModelEma {
 public:
  // An average of a store with these sizes, before its first update (which copies the model).
  ModelEma(const ParamSizes& sizes, double decay);
  ModelEma(const ModelEma&) = delete;  // state() points into it
  ModelEma& operator=(const ModelEma&) = delete;
  // The bytes a ModelEma of a store of these sizes holds, from the sizes its constructor
  // allocates: ModelEma(sizes, d).bytes() == bytes_for(sizes).
  static size_t bytes_for(const ParamSizes& sizes);
  size_t bytes() const;

  double decay() const { return decay_; }
  int64_t n_averaged() const { return n_averaged_; }

  // AveragedModel.update_parameters(model): copies the model while n_averaged is 0, otherwise
  // averages it in; then counts the update.
  void update(ParamStore& model);
  // torchvision's warmup: the next update copies the model again.
  void restart() { n_averaged_ = 0; }
  // After the optimizer step of batch `batch` (0-based, within its epoch): updates every `steps`
  // batches, from the first, and restarts after the update while `in_warmup`.
  void after_step(ParamStore& model, int64_t batch, int steps, bool in_warmup);
  // Exchanges the average's values with the model's, in place; twice restores both.
  void swap_with(ParamStore& model);
  // Takes another average's values and count (a resumed run's other cores).
  void copy_from(const ModelEma& other);

  // For checkpoints: the arrays and the update count, which a load writes into.
  AveragedModelState* state() { return &state_; }

 private:
  double decay_;
  AlignedBuffer params_, buffers_;
  std::vector<int64_t> counters_;
  int64_t n_averaged_ = 0;
  AveragedModelState state_;
};

// The average a core keeps of `model` under --model_ema, with torchvision's decay for a global
// batch of global_batch images over num_epochs epochs, holding a copy of the model (as
// AveragedModel's deepcopy) until its first update; null without --model_ema.
std::unique_ptr<ModelEma> make_model_ema(const ModelEmaOptions& options, ParamStore& model,
                                         int64_t global_batch, int num_epochs);

// Swaps an average into a replica's store for the scope of an evaluation, and back at its end.
class EmaSwap {
 public:
  EmaSwap(ModelEma& ema, ParamStore& model) : ema_(ema), model_(model) { ema_.swap_with(model_); }
  ~EmaSwap() { ema_.swap_with(model_); }
  EmaSwap(const EmaSwap&) = delete;
  EmaSwap& operator=(const EmaSwap&) = delete;

 private:
  ModelEma& ema_;
  ParamStore& model_;
};

}  // namespace xtrain
