// The Trainer's private parts, shared by its two files: trainer.cpp (the training epochs) and
// trainer_test_pass.cpp (the test passes). Not for other includers.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "lib/optim/grad_clip.h"
#include "lib/train/batch_buffer.h"
#include "lib/train/trainer.h"

namespace xtrain {

// One emulated core: its kernel threads, its replica and optimizer, its data shard, and the
// buffer its sources write batches into before they are copied into a plan's input.
struct Trainer::Core {
  Core(int rank, int ordinal, int threads, std::shared_ptr<const Graph> graph,
       const TrainerOptions& o, std::unique_ptr<BatchSource> train_source,
       std::unique_ptr<BatchSource> test_source);

  // The ordinal-0 core of the job speaks for it: the lines printed once, the logdir.
  bool speaks_for_job() const { return ordinal == 0; }
  Elements images() { return {image_storage.data(), batch_buffer.image_type}; }
  AveragedModelState* ema_state() { return ema ? ema->state() : nullptr; }  // for checkpoints

  const int rank;     // in this process's Mesh
  const int ordinal;  // in the job: its device xla:ordinal, its data shard, its dropout masks
  ThreadPool pool;
  Exec exec;
  Replica replica;
  std::unique_ptr<Optimizer> optimizer;
  std::optional<GradNormClip> clip;  // --clip_grad_norm
  std::unique_ptr<BatchSource> train, test;
  std::unique_ptr<LRScheduler> lr_scheduler;
  std::unique_ptr<ModelEma> ema;  // --model_ema's average of the replica, else null
  // The batch buffer, in its plans' image type (bfloat16 takes half), and its labels
  // (batch_buffer.h).
  const BatchBufferSize batch_buffer;
  AlignedBuffer image_storage;
  std::vector<int32_t> labels;
  int64_t global_step = 0;     // optimizer steps taken, over the whole run
  double best_top1 = 0.0;      // the best test top-1 so far, for checkpoints
  int64_t trained_images = 0;  // by this core, in this run
  double training_seconds = 0.0;
};

// One test pass, summed over every core's samples.
struct Trainer::TestCounts {
  double top1 = 0.0, top5 = 0.0, total = 0.0;
  double nonfinite = 0.0;  // samples whose outputs had a NaN or an infinity (never correct)
  // The weights or BatchNorm statistics were not finite: every sample counts as non-finite.
  bool weights_nonfinite = false;
  bool interrupted = false;  // a stop ended the pass: no counts

  double percent(double correct) const { return total > 0 ? 100.0 * correct / total : 0.0; }
  // Its metrics.jsonl record (kind "eval", or "eval_ema" for the model average's pass).
  EvalRecord record(int epoch, int64_t skipped_images, bool ema, double run_seconds) const {
    return {epoch,
            percent(top1),
            percent(top5),
            skipped_images,
            static_cast<int64_t>(nonfinite),
            static_cast<int64_t>(total),
            ema,
            run_seconds};
  }
  // Whether the pass counts towards the best accuracy and model_best: only when every output
  // was finite, so that a diverged model never scores.
  bool scores() const { return nonfinite == 0; }
};

// What a core's epochs keep across epochs: the best scores so far and the last evaluation.
struct Trainer::RunScores {
  double max_top1 = 0.0, max_top5 = 0.0;
  bool has_best = false;       // model_best exists: a later evaluation must beat max_top1
  TestCounts last;             // the last evaluation
  int64_t skipped_images = 0;  // unreadable images skipped so far, over every core
};

}  // namespace xtrain
