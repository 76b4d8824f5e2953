// LogDir: what --logdir keeps of a run, for scripts and for resuming: metrics.jsonl (a line per
// training log line and per evaluation), checkpoint-epoch-N.safetensors for the last
// --keep_checkpoints epochs, checkpoint-last and model_best (hard links to an epoch's file, so
// they cost no extra write and replace the old ones atomically), and summary.json at the end.
// Safe to call from every core's thread. Not here: the formats (lib/io), when to call (Trainer).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "lib/graph/replica.h"
#include "lib/io/checkpoint.h"
#include "lib/io/metrics_log.h"

namespace xtrain {

class LogDir {
 public:
  // Creates `dir` if needed, and removes the temporary files that killed writes of this class's
  // files left there (see stale_temporary_target in atomic_file.h). keep_checkpoints >= 1.
  LogDir(std::string dir, int keep_checkpoints);

  void append(const TrainRecord& record);
  void append(const EvalRecord& record);
  // Saves the replica after an epoch as checkpoint-epoch-N and checkpoint-last, and as
  // model_best when `improved`; removes epoch files older than the last keep_checkpoints.
  void save_epoch(Replica& replica, const CheckpointInfo& info, bool improved);
  // Saves checkpoint-last alone, in the middle of an epoch (--checkpoint_steps, Ctrl-C).
  void save_last(Replica& replica, const CheckpointInfo& info);
  void write_summary(const RunSummary& summary);

  // The newest checkpoint-last.safetensors in dir, for --resume=auto; throws if there is none.
  static std::string latest_checkpoint(const std::string& dir);

 private:
  std::string path(const std::string& name) const;

  std::string dir_;
  int keep_checkpoints_;
  std::mutex mutex_;
  MetricsLog metrics_;
};

}  // namespace xtrain
