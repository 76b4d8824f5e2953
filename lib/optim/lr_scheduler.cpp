#include "lib/optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lib/base/check.h"
#include "lib/optim/torchvision_lr_schedule.h"

namespace xtrain {

WarmupAndExponentialDecayLR::WarmupAndExponentialDecayLR(float max_lr, long steps_per_epoch,
                                                         int divide_every_n_epochs, float divisor,
                                                         float num_warmup_epochs)
    : max_lr_(max_lr),
      steps_per_epoch_(steps_per_epoch),
      divide_every_n_epochs_(divide_every_n_epochs),
      divisor_(divisor),
      num_warmup_epochs_(num_warmup_epochs),
      lr_(max_lr) {
  XTRAIN_CHECK(steps_per_epoch > 0, "the LR schedule needs at least one step per epoch");
  XTRAIN_CHECK(std::isfinite(max_lr), "--lr must be finite, got {}", max_lr);
  XTRAIN_CHECK(divide_every_n_epochs > 0,
               "--lr_scheduler_divide_every_n_epochs must be > 0, got {}", divide_every_n_epochs);
  XTRAIN_CHECK(divisor > 0.0f && std::isfinite(divisor),
               "--lr_scheduler_divisor must be finite and > 0, got {}", divisor);
  XTRAIN_CHECK(num_warmup_epochs >= 0.0f && std::isfinite(num_warmup_epochs),
               "--num_warmup_epochs must be finite and >= 0, got {}", num_warmup_epochs);
  step();  // as PyTorch's _LRScheduler constructor
}

long WarmupAndExponentialDecayLR::warmup_end() const {
  return static_cast<long>(std::ceil(num_warmup_epochs_)) * steps_per_epoch_;
}

double WarmupAndExponentialDecayLR::schedule(long count) const {
  const long epoch = count / steps_per_epoch_;
  if (count < warmup_end()) {  // epoch < ceil(num_warmup_epochs)
    const double warmup_steps = num_warmup_epochs_ * static_cast<double>(steps_per_epoch_);
    return std::min(max_lr_, max_lr_ * (count + 1.0) / warmup_steps);
  }
  return max_lr_ / std::pow(divisor_, static_cast<double>(epoch / divide_every_n_epochs_));
}

void WarmupAndExponentialDecayLR::step() {
  const double current = schedule(count_);
  ++count_;
  if (std::fabs(current - previous_lr_) >= 1e-6) {
    lr_ = static_cast<float>(schedule(count_));
    previous_lr_ = current;
  }
}

long WarmupAndExponentialDecayLR::constant_until(long count) const {
  if (count < warmup_end()) {
    // The ramp only grows, so once it reaches max_lr it stays there until the warmup ends.
    return schedule(count) == max_lr_ ? warmup_end() : count + 1;
  }
  const long next_decay_epoch = (count / steps_per_epoch_ / divide_every_n_epochs_ + 1) *
                                static_cast<long>(divide_every_n_epochs_);
  if (next_decay_epoch > std::numeric_limits<long>::max() / steps_per_epoch_) {
    return std::numeric_limits<long>::max();
  }
  return next_decay_epoch * steps_per_epoch_;
}

void WarmupAndExponentialDecayLR::seek(int64_t steps) {
  XTRAIN_CHECK(steps >= 0 && steps < std::numeric_limits<long>::max(),
               "cannot seek the LR schedule to step {}", steps);
  count_ = 0;
  previous_lr_ = -1.0;
  lr_ = static_cast<float>(max_lr_);
  step();  // the constructor's
  const long end = steps + 1;
  while (count_ < end) {
    // The step at count_ may change the rate; the later ones in the run compare the same f(c)
    // with the same previous rate, so they change nothing and only the count moves on.
    const long run_end = std::min(end, constant_until(count_));
    step();
    count_ = run_end;
  }
}

std::unique_ptr<LRScheduler> make_lr_scheduler(const LRSchedulerOptions& o) {
  if (!o.torchvision.lr_scheduler.empty()) {
    XTRAIN_CHECK(o.type == "none",
                 "--lr_scheduler_type={} and --lr_scheduler={}: give one of them (torch_xla's "
                 "schedule or torchvision's)",
                 o.type, o.torchvision.lr_scheduler);
    return std::make_unique<TorchvisionLR>(o.torchvision, o.lr, o.num_epochs,
                                           o.steps_per_trained_epoch);
  }
  if (o.type == "none") return std::make_unique<ConstantLR>(o.lr);
  XTRAIN_CHECK(o.type == "WarmupAndExponentialDecayScheduler",
               "--lr_scheduler_type: unknown type '{}' (allowed: "
               "WarmupAndExponentialDecayScheduler, none)",
               o.type);
  return std::make_unique<WarmupAndExponentialDecayLR>(
      o.lr, o.steps_per_epoch, o.divide_every_n_epochs, o.divisor, o.num_warmup_epochs);
}

}  // namespace xtrain
