// Trainer: the epoch loop of test_train_imagenet.py over N emulated cores (in each process of
// a job, see ProcessGroup). Each core trains its own replica on its own data shard; after
// backward the cores all-reduce the gradients to their mean, so every replica takes the same SGD
// step (LR schedule stepped every step) and the replicas stay bitwise equal. Each core prints its
// own training and test lines; the epoch lines and the accuracy, summed exactly over every core's
// samples, print once. A stop request ends every core after the same training step or test batch,
// also a core waiting for data. Not here: flags (apps/), where batches come from (data/), kernels,
// threads (lib/parallel).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/batch_source.h"
#include "lib/graph/replica.h"
#include "lib/optim/lr_scheduler.h"
#include "lib/optim/optimizer.h"
#include "lib/parallel/bucketed_mean.h"
#include "lib/parallel/mesh.h"
#include "lib/parallel/process_group.h"
#include "lib/train/batch_mix.h"
#include "lib/train/checkpoint_metadata.h"
#include "lib/train/log_dir.h"
#include "lib/train/metrics.h"
#include "lib/train/model_ema.h"
#include "lib/train/progress.h"
#include "lib/train/stop_vote.h"

namespace xtrain {

struct TrainerOptions {
  int num_cores = 1;
  int batch_size = 128;          // per core
  int test_set_batch_size = 64;  // per core
  int image_size = 224;          // of training images (--train_crop_size, or --image_size)
  int test_image_size = 0;       // of test images (--val_crop_size); 0: image_size
  int num_epochs = 18;
  int log_steps = 20;
  int64_t num_steps = 0;       // training steps per epoch; 0 = the whole epoch
  int64_t num_test_steps = 0;  // test batches per epoch, per core; 0 = all
  bool test_only_at_end = false;
  bool metrics_debug = false;  // print the metrics report after every epoch
  float label_smoothing = 0.0f;
  Precision precision = Precision::kFloat32;  // of convolutions and Linear layers (--bf16)
  uint64_t seed = 42;
  std::string profile;  // --profile: Chrome trace of the training layers, "" = off
  std::string logdir;   // --logdir: metrics, checkpoints and summary ("" = none; see log_dir.h)
  int keep_checkpoints = 3;
  int64_t checkpoint_steps = 0;  // also save checkpoint-last every this many steps (0: epochs only)
  std::string model;             // --model, recorded in checkpoints
  std::string flags = "{}";      // the run's flags as a JSON object, recorded in checkpoints
  OptimizerOptions optimizer;
  BatchMixOptions batch_mix;            // --mixup_alpha, --cutmix_alpha
  std::optional<float> clip_grad_norm;  // the all-reduced gradient's largest L2 norm
  LRSchedulerOptions lr_schedule;       // steps_per_epoch is taken from the training data
  ModelEmaOptions model_ema;            // --model_ema: each core's average, evaluated each epoch
  // Top-1 accuracies (percent) whose time to reach summary.json reports (--time_to_top1 and
  // --target_accuracy), ascending.
  std::vector<double> top1_targets;
  // --sync_bn: training BatchNorm layers normalize with the statistics of the step's whole batch,
  // every replica's (PyTorch's SyncBatchNorm), the same bytes for every placement of the replicas.
  bool sync_bn = false;
  // Set (e.g. by a signal handler) to stop every core after the current training step or test
  // batch, waking any core that waits for data; may be null.
  const std::atomic<bool>* stop_requested = nullptr;
  // Called on core 0's thread after every training step (e.g. to draw a status line); may be
  // empty. It must return quickly: the other cores wait for core 0 at the next all-reduce.
  std::function<void(const Progress&)> on_progress;
  // The job's processes when an MPI launcher started several (see ProcessGroup), each with
  // num_cores cores; by default this process alone.
  ProcessGroup* processes = &ProcessGroup::alone();
  // In such a job, the gradients' mean across processes is taken in buckets of about this many
  // MiB while backward runs (PyTorch DDP's bucket_cap_mb); 0 takes it once after backward, and
  // so does sync_bn, whose BatchNorm layers meet the other processes during backward (MPI takes
  // one thread's calls at a time).
  double bucket_cap_mb = 25.0;
};

// The test images' side: test_image_size, or image_size when that is 0.
int test_image_side(const TrainerOptions& options);

// Named as in summary.json (RunSummary). An evaluation in which any sample had non-finite outputs
// scores 0 towards max_top1 and max_top5 (and never makes model_best): a diverged model never
// scores.
struct TrainResult {
  double max_top1 = 0.0;        // best test top-1, percent (the log's Max Accuracy)
  double max_top5 = 0.0;        // best test top-5, percent
  double final_top1 = 0.0;      // the last evaluation, percent (non-finite samples counted wrong)
  double final_top5 = 0.0;      // top-5 of the last evaluation, percent
  int64_t final_samples = 0;    // samples of the last evaluation
  int64_t final_nonfinite = 0;  // of them, those whose outputs had a NaN or an infinity
  // The last evaluation's weights or BatchNorm statistics were not finite: every sample of it
  // counted as non-finite, whatever its outputs.
  bool final_weights_nonfinite = false;
  bool interrupted = false;  // stopped by stop_requested
  // The evaluations that raised the best top-1 over the whole run (resumes included), with the
  // run's wall time at each: when each accuracy was first reached.
  std::vector<Top1Milestone> top1_milestones;
};

class Trainer {
 public:
  Trainer(std::shared_ptr<const Graph> graph, const TrainerOptions& options,
          const BatchSourceFactory& train, const BatchSourceFactory& test);
  ~Trainer();

  // Opens --logdir (see LogDir), taking its lock; run() does at the latest. A caller opens it
  // earlier to find an unusable logdir before anything else.
  void open_log_dir();
  // Trains every epoch on every core. Throws xtrain::Error naming the core if any core fails.
  TrainResult run();
  // Evaluates the test set once (--evaluate); max_top1 is its score.
  TrainResult evaluate();

  // --resume: every replica takes the checkpoint's weights, statistics and momentum, and the run
  // goes on after the checkpoint's epoch with the LR schedule where it was.
  void resume(const std::string& path);
  // --pretrained: weights and statistics only. Returns the fc tensors left freshly initialized
  // because the file has another class count.
  std::vector<std::string> load_pretrained(const std::string& path);

  int num_cores() const { return mesh_.num_cores(); }    // in this process
  int world_size() const { return mesh_.world_size(); }  // in the job
  Replica& replica(int rank);
  Optimizer& optimizer(int rank);

  // What run() will do, for the Run line: the first epoch it trains (later after a resume), the
  // training steps of an epoch and the test batches per core of one evaluation.
  int first_epoch() const { return first_epoch_; }
  // Whether a resumed run has nothing left to do: every epoch trained and evaluated.
  bool finished() const;
  // The best test top-1 before this run (a resumed run's Max Accuracy so far), percent.
  double best_top1() const { return best_top1_; }
  int64_t steps_per_epoch() const;
  int64_t test_steps_per_epoch() const;

 private:
  struct Core;
  struct TestCounts;
  struct RunScores;

  void run_on_cores(const std::function<void(Core&)>& fn);
  void run_core(Core& core, TrainResult& result);
  bool tests_after(int epoch) const;
  // After `epoch`'s training: its test pass when one is due, the lines, the metrics record and
  // the checkpoints. False when a stop ended the test pass.
  bool end_epoch(Core& core, int epoch, RunScores& scores);
  void stop_core(Core& core, int epoch, TrainResult& result);
  void evaluate_core(Core& core, TrainResult& result);
  void report_test(Core& core, int epoch, const TestCounts& counts);
  int64_t report_skipped(Core& core, int epoch, int64_t before);
  void close_sources();
  void save_mid_epoch(Core& core, int epoch);
  int64_t test_steps(const BatchSource& test) const;
  // False when a stop was requested.
  bool train_epoch(Core& core, int epoch);
  float train_step(Core& core, Plan& plan, float lr, int epoch, int64_t step);
  TestCounts test_epoch(Core& core, int epoch);
  // The test pass of the core's model average swapped into its replica, and its line.
  TestCounts test_ema(Core& core, int epoch);
  Plan& plan_for(Core& core, int batch, PlanMode mode);
  static void load_batch(Core& core, Plan& plan, int batch);
  void mix_batch(Core& core, Plan& plan, int batch);
  void print_once(Core& core, const std::string& line);

  TrainerOptions options_;
  std::unique_ptr<const Layer> loss_;  // ends every core's training plans (training_loss.h)
  Mesh mesh_;
  std::unique_ptr<BucketedMean> bucketed_mean_;  // in a job, unless bucket_cap_mb is 0
  StopVote stop_;
  Metrics metrics_;
  std::unique_ptr<LogDir> log_dir_;
  int first_epoch_ = 1;
  int64_t first_step_ = 0;  // steps of first_epoch_ already taken (a mid-epoch resume)
  double best_top1_ = 0.0;  // the best top-1 before this run (resume)
  // Time to accuracy: the run's seconds before this process (a resume's checkpoint), when this
  // process's run() began, and the evaluations that raised the best top-1 since the run's start,
  // resumes included (core 0 keeps them).
  double seconds_before_ = 0.0;
  Metrics::Clock::time_point run_start_ = Metrics::Clock::now();
  std::vector<Top1Milestone> top1_milestones_;
  double run_seconds() const;
  bool evaluation_pending_ = false;  // first_epoch_ - 1 was trained, its test pass stopped
  bool resumed_ = false;
  std::vector<std::unique_ptr<Core>> cores_;
};

}  // namespace xtrain
