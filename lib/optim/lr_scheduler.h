// Learning-rate schedules, stepped once after every optimizer step as in test_train_imagenet.py:
// torch_xla's (--lr_scheduler_type), the default, or torchvision's reference recipes
// (--lr_scheduler, torchvision_lr_schedule.h), whose rate changes between epochs only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace xtrain {

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  virtual float lr() const = 0;  // for the next optimizer step
  virtual void step() = 0;       // after each optimizer step
  // The state of a fresh scheduler stepped `steps` times, without taking each step (--resume).
  virtual void seek(int64_t steps) = 0;
};

// --lr_scheduler_type=none: the base learning rate throughout.
class ConstantLR : public LRScheduler {
 public:
  explicit ConstantLR(float lr) : lr_(lr) {}
  float lr() const override { return lr_; }
  void step() override {}
  void seek(int64_t steps) override {}

 private:
  float lr_;
};

// torch_xla's test/schedulers.py WarmupAndExponentialDecayScheduler, replayed exactly, quirks
// included: with c the scheduler's step count,
//   f(c) = min(max_lr, max_lr * (c + 1) / (num_warmup_epochs * steps_per_epoch))
//            while c / steps_per_epoch < ceil(num_warmup_epochs),
//   f(c) = max_lr / divisor^((c / steps_per_epoch) / divide_every_n_epochs)  after.
// Construction already steps once (PyTorch's _LRScheduler does), so the first optimizer step
// uses f(1); and the optimizer's rate only changes when f moved by at least 1e-6 since the last
// change, which makes each decay land one step after its epoch boundary.
// That rule makes the rate depend on the whole history, so seek() takes the steps where f moves
// (the warmup ramp, one per decay) and skips the runs where f stays put, in which no step can
// change anything: O(warmup steps + decays) instead of O(steps), with the same result bitwise.
class WarmupAndExponentialDecayLR : public LRScheduler {
 public:
  WarmupAndExponentialDecayLR(float max_lr, long steps_per_epoch, int divide_every_n_epochs,
                              float divisor, float num_warmup_epochs);
  float lr() const override { return lr_; }
  void step() override;
  void seek(int64_t steps) override;

 private:
  double schedule(long count) const;  // f(c)
  // The end of the run of counts c >= count where f(c) == f(count); at least count + 1.
  long constant_until(long count) const;
  long warmup_end() const;  // the first count past the warmup epochs

  double max_lr_;
  long steps_per_epoch_;
  int divide_every_n_epochs_;
  double divisor_, num_warmup_epochs_;
  long count_ = 0;
  double previous_lr_ = -1.0;
  float lr_;
};

// torchvision's references/classification/train.py flags, under its names. The factors are
// doubles, as Python holds them, so that the rates follow torch's to float32's precision.
struct TorchvisionLROptions {
  // steplr, multisteplr, cosineannealinglr or exponentiallr; "" leaves the choice to
  // LRSchedulerOptions::type.
  std::string lr_scheduler;
  int lr_warmup_epochs = 0;
  std::string lr_warmup_method = "constant";  // or "linear"
  double lr_warmup_decay = 0.01;              // the warmup's factor of the rate (at its start)
  int lr_step_size = 30;                      // steplr
  double lr_gamma = 0.1;                      // steplr, multisteplr, exponentiallr
  double lr_min = 0.0;                        // cosineannealinglr's eta_min
  // multisteplr's epochs, increasing; counted from the warmup's end, where SequentialLR starts
  // the main scheduler afresh.
  std::vector<int> lr_milestones;
};

struct LRSchedulerOptions {
  std::string type;  // --lr_scheduler_type: "WarmupAndExponentialDecayScheduler" or "none"
  float lr = 0.1f;
  // The data's batches per epoch, which torch_xla's schedule counts also with --num_steps.
  long steps_per_epoch = 1;
  int divide_every_n_epochs = 20;
  float divisor = 5.0f;
  float num_warmup_epochs = 0.9f;
  // torchvision's schedules, used instead of `type` (which must then be "none") when
  // torchvision.lr_scheduler is set. They step after each epoch of the run: after
  // steps_per_trained_epoch optimizer steps (--num_steps caps steps_per_epoch to it), and
  // cosineannealinglr anneals over num_epochs - lr_warmup_epochs.
  TorchvisionLROptions torchvision;
  int64_t steps_per_trained_epoch = 1;
  int num_epochs = 1;
};

// Throws xtrain::Error naming the flag for an unknown type or a bad value, and naming both
// --lr_scheduler_type and --lr_scheduler when both are set.
std::unique_ptr<LRScheduler> make_lr_scheduler(const LRSchedulerOptions& options);

}  // namespace xtrain
