#include "lib/train/trainer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include "lib/base/check.h"
#include "lib/train/accuracy.h"
#include "lib/train/chrome_trace.h"
#include "lib/train/layer_profile.h"
#include "lib/train/log_lines.h"
#include "lib/train/rate_tracker.h"

namespace xtrain {
namespace {

constexpr int kCore = 0;  // one emulated core for now: xla:0
constexpr int kImageChannels = 3;

int hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

LRSchedulerOptions with_steps_per_epoch(LRSchedulerOptions o, int64_t steps_per_epoch) {
  o.steps_per_epoch = std::max<int64_t>(1, steps_per_epoch);
  return o;
}

}  // namespace

Trainer::Trainer(std::shared_ptr<const Graph> graph, const TrainerOptions& options,
                 BatchSource& train, BatchSource& test)
    : options_(options),
      train_(train),
      test_(test),
      pool_(hardware_threads()),
      exec_{&pool_},
      replica_(std::move(graph), options.label_smoothing),
      sgd_(options.sgd),
      // Like the XLA script, the schedule counts the data set's full epoch even with --num_steps.
      lr_scheduler_(
          make_lr_scheduler(with_steps_per_epoch(options.lr_schedule, train.batches_per_epoch()))) {
  XTRAIN_CHECK(options.log_steps > 0, "--log_steps must be > 0, got {}", options.log_steps);
  replica_.store().initialize(options.seed);
}

double Trainer::run() {
  double max_accuracy = 0.0;
  for (int epoch = 1; epoch <= options_.num_epochs; ++epoch) {
    spdlog::info(epoch_train_begin_line(epoch, clock_time()));
    train_epoch(epoch);
    spdlog::info(epoch_train_end_line(epoch, clock_time()));
    if (!options_.test_only_at_end || epoch == options_.num_epochs) {
      const double accuracy = test_epoch(epoch);
      spdlog::info(epoch_test_end_line(epoch, clock_time(), accuracy));
      max_accuracy = std::max(max_accuracy, accuracy);
    }
  }
  spdlog::info(max_accuracy_line(max_accuracy));
  return max_accuracy;
}

void Trainer::train_epoch(int epoch) {
  const Shape input{options_.batch_size, options_.image_size, options_.image_size, kImageChannels};
  Plan& plan = replica_.plan_for(input, PlanMode::kTrain);
  if (!options_.profile.empty()) plan.enable_profiling();
  ParamStore& store = replica_.store();
  int64_t steps = train_.batches_per_epoch();
  if (options_.num_steps > 0) steps = std::min(steps, options_.num_steps);

  RateTracker tracker;
  for (int64_t step = 0; step < steps; ++step) {
    train_.next(plan.input(), plan.labels());
    store.zero_grads();
    const float loss = plan.forward(exec_);
    XTRAIN_CHECK(std::isfinite(loss), "xla:{}: the loss is {} at epoch {} step {}", kCore, loss,
                 epoch, step);
    plan.backward(exec_);
    sgd_.step(store.num_params(), store.params(), store.grads(), replica_.momentum(),
              lr_scheduler_->lr(), exec_);
    lr_scheduler_->step();
    tracker.add(options_.batch_size);
    if (step % options_.log_steps == 0) {
      const double rate = tracker.rate();
      spdlog::info(
          training_line(kCore, epoch, step, loss, rate, tracker.global_rate(), clock_time()));
    }
  }
  if (!options_.profile.empty()) {
    write_chrome_trace(plan, options_.profile);
    for (const std::string& line : top_layers_lines(plan, /*top=*/10)) spdlog::info(line);
  }
}

double Trainer::test_epoch(int epoch) {
  const Shape input{options_.test_set_batch_size, options_.image_size, options_.image_size,
                    kImageChannels};
  Plan& plan = replica_.plan_for(input, PlanMode::kEval);
  int64_t steps = test_.batches_per_epoch();
  if (options_.num_test_steps > 0) steps = std::min(steps, options_.num_test_steps);

  int64_t correct = 0, total = 0;
  for (int64_t step = 0; step < steps; ++step) {
    test_.next(plan.input(), plan.labels());
    plan.forward(exec_);
    const TensorView logits = plan.logits();
    const int n = static_cast<int>(logits.shape[0]);
    correct += count_top_k_correct(logits.data, plan.labels(), n, static_cast<int>(logits.shape[1]),
                                   /*k=*/1);
    total += n;
    if (step % options_.log_steps == 0) {
      spdlog::info(test_line(kCore, step, epoch, clock_time()));
    }
  }
  return total > 0 ? 100.0 * correct / total : 0.0;
}

}  // namespace xtrain
