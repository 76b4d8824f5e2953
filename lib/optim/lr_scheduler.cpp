#include "lib/optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>

#include "lib/base/check.h"

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
  XTRAIN_CHECK(divide_every_n_epochs > 0,
               "--lr_scheduler_divide_every_n_epochs must be > 0, got {}", divide_every_n_epochs);
  XTRAIN_CHECK(divisor > 0.0f, "--lr_scheduler_divisor must be > 0, got {}", divisor);
  XTRAIN_CHECK(num_warmup_epochs >= 0.0f, "--num_warmup_epochs must be >= 0, got {}",
               num_warmup_epochs);
  step();  // as PyTorch's _LRScheduler constructor
}

double WarmupAndExponentialDecayLR::schedule(long count) const {
  const long epoch = count / steps_per_epoch_;
  if (epoch < static_cast<long>(std::ceil(num_warmup_epochs_))) {
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

std::unique_ptr<LRScheduler> make_lr_scheduler(const LRSchedulerOptions& o) {
  if (o.type == "none") return std::make_unique<ConstantLR>(o.lr);
  XTRAIN_CHECK(o.type == "WarmupAndExponentialDecayScheduler",
               "--lr_scheduler_type: unknown type '{}' (allowed: "
               "WarmupAndExponentialDecayScheduler, none)",
               o.type);
  return std::make_unique<WarmupAndExponentialDecayLR>(
      o.lr, o.steps_per_epoch, o.divide_every_n_epochs, o.divisor, o.num_warmup_epochs);
}

}  // namespace xtrain
