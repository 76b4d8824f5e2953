#include "lib/optim/torchvision_lr_schedule.h"

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "lib/base/check.h"

namespace xtrain {

void check_torchvision_lr_options(const TorchvisionLROptions& o, int num_epochs) {
  const std::string& name = o.lr_scheduler;
  XTRAIN_CHECK(name == "steplr" || name == "multisteplr" || name == "cosineannealinglr" ||
                   name == "exponentiallr",
               "--lr_scheduler: expected one of steplr, multisteplr, cosineannealinglr, "
               "exponentiallr, got '{}'",
               name);
  XTRAIN_CHECK(o.lr_warmup_epochs >= 0, "--lr_warmup_epochs: expected 0 or more, got {}",
               o.lr_warmup_epochs);
  XTRAIN_CHECK(o.lr_warmup_method == "linear" || o.lr_warmup_method == "constant",
               "--lr_warmup_method: expected linear or constant, got '{}'", o.lr_warmup_method);
  // LinearLR divides by its start factor times the warmup epochs: 0 would divide by 0.
  XTRAIN_CHECK(o.lr_warmup_decay > 0.0 && o.lr_warmup_decay <= 1.0,
               "--lr_warmup_decay: expected a factor above 0 and at most 1, got {}",
               o.lr_warmup_decay);
  XTRAIN_CHECK(o.lr_step_size >= 1, "--lr_step_size: expected 1 or more epochs, got {}",
               o.lr_step_size);
  XTRAIN_CHECK(o.lr_gamma > 0.0 && o.lr_gamma <= 1.0,
               "--lr_gamma: expected a factor above 0 and at most 1, got {}", o.lr_gamma);
  XTRAIN_CHECK(std::isfinite(o.lr_min) && o.lr_min >= 0.0,
               "--lr_min: expected a finite rate >= 0, got {}", o.lr_min);
  if (name == "multisteplr") {
    XTRAIN_CHECK(!o.lr_milestones.empty(),
                 "--lr_scheduler=multisteplr needs --lr_milestones (epochs, e.g. 150,225)");
  }
  for (size_t i = 0; i < o.lr_milestones.size(); ++i) {
    XTRAIN_CHECK(o.lr_milestones[i] >= 1, "--lr_milestones: expected epochs from 1, got {}",
                 o.lr_milestones[i]);
    XTRAIN_CHECK(i == 0 || o.lr_milestones[i] > o.lr_milestones[i - 1],
                 "--lr_milestones: expected increasing epochs, got {} after {}", o.lr_milestones[i],
                 o.lr_milestones[i - 1]);
  }
  if (name == "cosineannealinglr") {
    XTRAIN_CHECK(num_epochs > o.lr_warmup_epochs,
                 "--lr_scheduler=cosineannealinglr anneals over the epochs after the warmup: "
                 "expected --num_epochs above --lr_warmup_epochs, got {} and {}",
                 num_epochs, o.lr_warmup_epochs);
  }
}

std::unique_ptr<torch_lr::Scheduler> torchvision_lr_schedulers(const TorchvisionLROptions& o,
                                                               int num_epochs,
                                                               torch_lr::ParamGroup& group) {
  check_torchvision_lr_options(o, num_epochs);
  std::unique_ptr<torch_lr::ChainableScheduler> main;
  if (o.lr_scheduler == "steplr") {
    main = std::make_unique<torch_lr::StepLR>(group, o.lr_step_size, o.lr_gamma);
  } else if (o.lr_scheduler == "multisteplr") {
    main = std::make_unique<torch_lr::MultiStepLR>(
        group, std::vector<int64_t>(o.lr_milestones.begin(), o.lr_milestones.end()), o.lr_gamma);
  } else if (o.lr_scheduler == "cosineannealinglr") {
    main = std::make_unique<torch_lr::CosineAnnealingLR>(
        group, int64_t{num_epochs} - o.lr_warmup_epochs, o.lr_min);
  } else {
    main = std::make_unique<torch_lr::ExponentialLR>(group, o.lr_gamma);
  }
  if (o.lr_warmup_epochs == 0) return main;

  std::vector<std::unique_ptr<torch_lr::ChainableScheduler>> schedulers;
  if (o.lr_warmup_method == "linear") {
    schedulers.push_back(
        std::make_unique<torch_lr::LinearLR>(group, o.lr_warmup_decay, 1.0, o.lr_warmup_epochs));
  } else {
    schedulers.push_back(
        std::make_unique<torch_lr::ConstantLR>(group, o.lr_warmup_decay, o.lr_warmup_epochs));
  }
  schedulers.push_back(std::move(main));
  return std::make_unique<torch_lr::SequentialLR>(group, std::move(schedulers),
                                                  std::vector<int64_t>{o.lr_warmup_epochs});
}

TorchvisionLR::TorchvisionLR(const TorchvisionLROptions& options, double lr, int num_epochs,
                             int64_t steps_per_epoch)
    : options_(options), base_lr_(lr), num_epochs_(num_epochs), steps_per_epoch_(steps_per_epoch) {
  XTRAIN_CHECK(steps_per_epoch > 0, "the LR schedule needs at least one step per epoch");
  XTRAIN_CHECK(std::isfinite(lr), "--lr must be finite, got {}", lr);
  restart();
}

void TorchvisionLR::restart() {
  group_ = {base_lr_, base_lr_};  // a fresh optimizer: its rate, and no scheduler yet
  schedulers_ = torchvision_lr_schedulers(options_, num_epochs_, group_);
  steps_ = 0;
  lr_ = static_cast<float>(group_.lr);
}

void TorchvisionLR::step() {
  ++steps_;
  if (steps_ % steps_per_epoch_ == 0) {  // the epoch's last step: train.py's lr_scheduler.step()
    schedulers_->step();
    lr_ = static_cast<float>(group_.lr);
  }
}

void TorchvisionLR::seek(int64_t steps) {
  XTRAIN_CHECK(steps >= 0, "cannot seek the LR schedule to step {}", steps);
  restart();
  for (int64_t epoch = 0; epoch < steps / steps_per_epoch_; ++epoch) schedulers_->step();
  steps_ = steps;
  lr_ = static_cast<float>(group_.lr);
}

}  // namespace xtrain
