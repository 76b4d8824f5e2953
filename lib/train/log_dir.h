// LogDir: what --logdir keeps of a run, for scripts, TensorBoard and resuming: metrics.jsonl (a
// line per training log line and per evaluation), a TensorBoard event file per run
// (events.out.tfevents.*: core 0's training lines and every evaluation as scalars, see
// tensorboard_scalars below), checkpoint-epoch-N.safetensors for the last
// --keep_checkpoints epochs, checkpoint-last (a hard link to an epoch's file, so it costs no
// extra write and replaces the old one atomically), model_best (the model alone, as PyTorch
// loads a state_dict), and summary.json at the end. One run at a time: the run holds the
// folder's lock (run.lock, see folder_lock.h) from before its first write to its end.
// Safe to call from every core's thread. Not here: the formats (lib/io), when to call (Trainer).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "lib/graph/replica.h"
#include "lib/io/checkpoint.h"
#include "lib/io/event_file.h"
#include "lib/io/folder_lock.h"
#include "lib/io/metrics_log.h"

namespace xtrain {

// The scalars TensorBoard shows, named as test_train_imagenet.py and torch_xla's test_utils name
// them where they have them: per training line "Loss/train", "examples/sec" (Rate),
// "average_examples/sec" (GlobalRate), "LearningRate" and "DataWait/share" at the global step;
// per evaluation "Accuracy/test" and "Accuracy/test_top5" (percent) at the epoch, and per
// evaluation of the model's average (--model_ema) "Accuracy/test_ema" and "Accuracy/test_top5_ema".
std::vector<Scalar> tensorboard_scalars(const TrainRecord& record);
std::vector<Scalar> tensorboard_scalars(const EvalRecord& record);

class LogDir {
 public:
  // Creates `dir` if needed and takes its lock, or throws naming the run that holds it. Then
  // removes the temporary files that killed writes of this class's files left there: with the
  // lock held, no writer of them is alive, here or on another host. keep_checkpoints >= 1.
  LogDir(std::string dir, int keep_checkpoints);

  // To metrics.jsonl, and to the event file for core 0's lines (one writer, as on a pod).
  void append(const TrainRecord& record);
  // To metrics.jsonl and the event file.
  void append(const EvalRecord& record);
  // Saves the replica, its optimizer's state and its model average (--model_ema; null: none)
  // after an epoch as checkpoint-epoch-N and checkpoint-last, and its model alone as model_best
  // when `improved` (the model's weights, never the average's); removes epoch files older than
  // the last keep_checkpoints.
  void save_epoch(Replica& replica, const std::vector<StateBuffer>& optimizer,
                  const CheckpointInfo& info, bool improved,
                  const AveragedModelState* ema = nullptr);
  // Saves checkpoint-last alone, in the middle of an epoch (--checkpoint_steps, Ctrl-C).
  void save_last(Replica& replica, const std::vector<StateBuffer>& optimizer,
                 const CheckpointInfo& info, const AveragedModelState* ema = nullptr);
  void write_summary(const RunSummary& summary);

  // The newest checkpoint-last.safetensors in dir, for --resume=auto; "" if there is none yet.
  static std::string latest_checkpoint(const std::string& dir);

 private:
  std::string path(const std::string& name) const;

  std::string dir_;
  FolderLock lock_;  // before the members that write in dir_
  int keep_checkpoints_;
  std::mutex mutex_;
  MetricsLog metrics_;
  EventFile events_;
};

}  // namespace xtrain
