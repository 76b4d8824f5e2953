// A checkpoint's metadata as the trainer writes it (checkpoint_info) and reads it back
// (resume_point: where a resumed run goes on, once the metadata is checked to describe a point
// this run could have reached).
// Not here: the file itself (lib/io/checkpoint.h), restoring the replicas (Trainer).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/io/checkpoint.h"
#include "lib/tensor/precision.h"

namespace xtrain {

// The most epochs a run counts (--num_epochs, a checkpoint's epoch): far beyond any real run, and
// far from overflowing epoch numbers and step counts.
inline constexpr int kMaxEpochs = 1'000'000;

// How far a run got towards accuracy, kept across its resumes.
struct RunProgress {
  double best_top1 = 0.0;    // Max Accuracy so far, percent
  double run_seconds = 0.0;  // wall time trained and tested so far, over every resume
  std::vector<Top1Milestone> top1_milestones;  // when each new best top-1 was reached
};

struct ResumePoint {
  int first_epoch = 1;      // the epoch to go on with
  int64_t first_step = 0;   // steps of first_epoch already taken (a mid-epoch checkpoint)
  int64_t global_step = 0;  // optimizer steps taken
  RunProgress progress;
  // The epoch before first_epoch was trained but its test pass was stopped: it runs first.
  bool evaluation_pending = false;
};

CheckpointInfo checkpoint_info(const std::string& model, const std::string& flags,
                               Precision precision, int64_t epochs_done, int64_t global_step,
                               const RunProgress& progress);

// Throws xtrain::Error naming `path` when `info` was written by another model or cannot come
// from a run of `steps_per_epoch` steps per epoch.
ResumePoint resume_point(const CheckpointInfo& info, const std::string& path,
                         const std::string& model, int64_t steps_per_epoch);

}  // namespace xtrain
