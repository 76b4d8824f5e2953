// Checkpoint: a replica's state as a safetensors file that reads as a torchvision state_dict.
// Names are the state_dict keys, shapes PyTorch's (Conv2d weights OIHW, converted here),
// parameters and buffers F32, num_batches_tracked I64 scalars; an optimizer's state buffer b of
// parameter p is "optimizer.<b>.<p>" (SGD's momentum: optimizer.momentum_buffer.<p>); a model
// average (--model_ema) is "ema.<name>" for each of the model's tensors, in the same layouts, and
// its update count the I64 scalar "ema.n_averaged". Loading
// checks the whole file against the model first and changes nothing unless everything fits.
// Not here: when to save or which file to resume from (lib/train), the file format
// (safetensors.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/graph/replica.h"
#include "lib/io/top1_milestones.h"
#include "lib/optim/state_buffer.h"

namespace xtrain {

// Bumped when the meaning of a file changes; loading refuses other versions.
inline constexpr int kCheckpointFormatVersion = 1;

// The run's state beyond the tensors, stored in __metadata__.
struct CheckpointInfo {
  std::string model;         // --model, e.g. "resnet50"
  int64_t epoch = 0;         // epochs completed
  int64_t global_step = 0;   // optimizer steps taken
  std::string flags = "{}";  // the run's flags as a JSON object
  double best_top1 = 0.0;    // the best test top-1 so far, percent (Max Accuracy on resume)
  // What the run multiplied in (the tensors are float32 either way); "" in files written before
  // it was recorded.
  std::string precision;
  // The run's wall time when saved, summed over its resumes, and the evaluations that raised its
  // best top-1 (time to accuracy); 0 and none in files written before they were recorded.
  double run_seconds = 0.0;
  std::vector<Top1Milestone> top1_milestones;
};

// A model's average kept beside a replica (--model_ema): flat arrays laid out as the replica's
// ParamStore (each entry at its offset in the array of its kind), and its update count.
struct AveragedModelState {
  float* params = nullptr;
  float* buffers = nullptr;
  int64_t* counters = nullptr;
  int64_t* n_averaged = nullptr;
};

// Writes parameters, buffers, counters, the optimizer's state and the average, if any, atomically
// (the old file survives a failure).
void save_checkpoint(const std::string& path, Replica& replica,
                     const std::vector<StateBuffer>& optimizer, const CheckpointInfo& info,
                     const AveragedModelState* ema = nullptr);

// Writes the model alone (parameters, buffers, counters: exactly a PyTorch state_dict, which
// load_state_dict takes strictly), atomically, with a checkpoint's metadata. Such a file is for
// --pretrained, predict and PyTorch; load_checkpoint refuses it, having no optimizer state to
// resume.
void save_model(const std::string& path, Replica& replica, const CheckpointInfo& info);

// For --resume: restores everything save_checkpoint wrote and returns its metadata. The file must
// have been written for `model` (checked first, so another model's file is named as such) and
// hold exactly the model's tensors plus the optimizer's state, and the average's when `ema` is
// given (a file without them is refused, naming --model_ema); without `ema`, an average in the
// file is left unread, as torchvision's script does without --model_ema.
CheckpointInfo load_checkpoint(const std::string& path, Replica& replica,
                               const std::vector<StateBuffer>& optimizer, const std::string& model,
                               const AveragedModelState* ema = nullptr);

// For --pretrained: loads parameters, buffers and counters (optimizer state and a model average in
// the file are ignored, the optimizer starts fresh). Missing keys, unexpected keys and shape or
// dtype mismatches are listed together in one xtrain::Error. With skip_mismatched_fc, the
// classifier's tensors (fc.* in a ResNet, Graph::classifier()) whose shape differs (another class
// count) are left as they are and returned, for the caller to re-initialize and mention; otherwise
// the list is empty.
std::vector<std::string> load_pretrained(const std::string& path, Replica& replica,
                                         bool skip_mismatched_fc);

}  // namespace xtrain
