// Learning-rate schedules, stepped once after every optimizer step as in test_train_imagenet.py.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

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

struct LRSchedulerOptions {
  std::string type;  // "WarmupAndExponentialDecayScheduler" or "none"
  float lr = 0.1f;
  long steps_per_epoch = 1;
  int divide_every_n_epochs = 20;
  float divisor = 5.0f;
  float num_warmup_epochs = 0.9f;
};

// Throws xtrain::Error naming --lr_scheduler_type for an unknown type.
std::unique_ptr<LRScheduler> make_lr_scheduler(const LRSchedulerOptions& options);

}  // namespace xtrain
