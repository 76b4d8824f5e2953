// Trainer: the epoch loop of test_train_imagenet.py on one replica: train an epoch (SGD with the
// LR schedule stepped every step, a training line every --log_steps), then evaluate on the test
// batches, printing the same lines as the XLA script. Not here: flags (apps/), where batches
// come from (data/), kernels.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "lib/graph/replica.h"
#include "lib/optim/lr_scheduler.h"
#include "lib/optim/sgd.h"
#include "lib/train/batch_source.h"

namespace xtrain {

struct TrainerOptions {
  int batch_size = 128;          // per core
  int test_set_batch_size = 64;  // per core
  int image_size = 224;
  int num_epochs = 18;
  int log_steps = 20;
  int64_t num_steps = 0;       // training steps per epoch; 0 = the whole epoch
  int64_t num_test_steps = 0;  // test batches per epoch; 0 = all
  bool test_only_at_end = false;
  float label_smoothing = 0.0f;
  uint64_t seed = 42;
  std::string profile;  // --profile: Chrome trace of the training layers, "" = off
  SGDOptions sgd;
  LRSchedulerOptions lr_schedule;  // steps_per_epoch is taken from the training data
};

class Trainer {
 public:
  Trainer(std::shared_ptr<const Graph> graph, const TrainerOptions& options, BatchSource& train,
          BatchSource& test);

  // Trains every epoch and returns the best test top-1 accuracy, in percent.
  double run();

  Replica& replica() { return replica_; }

 private:
  void train_epoch(int epoch);
  double test_epoch(int epoch);  // top-1 accuracy in percent

  TrainerOptions options_;
  BatchSource& train_;
  BatchSource& test_;
  ThreadPool pool_;
  Exec exec_;
  Replica replica_;
  SGD sgd_;
  std::unique_ptr<LRScheduler> lr_scheduler_;
};

}  // namespace xtrain
