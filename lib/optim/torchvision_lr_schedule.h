// torchvision's reference learning-rate recipes (references/classification/train.py, 0.14:
// --lr_scheduler and the --lr_* flags around it) as an LRScheduler. train.py builds a main
// scheduler (StepLR, CosineAnnealingLR over the epochs after the warmup, ExponentialLR; xtrain
// adds MultiStepLR), with warmup epochs a LinearLR or ConstantLR before it joined by SequentialLR,
// and steps it once after each epoch. So the rate here is the one torch's schedulers give an
// epoch, held for all of that epoch's optimizer steps: step() counts the steps and steps the
// schedulers when an epoch ends, and seek(steps) replays the epochs before that step, so a run
// resumed mid-epoch uses the rate an uninterrupted one does.
// Not here: the schedulers' arithmetic (torch_lr_schedulers.h), the flags (apps/train_flags.cpp),
// torch_xla's per-step schedule (lr_scheduler.h).
#pragma once

#include <cstdint>
#include <memory>

#include "lib/optim/lr_scheduler.h"
#include "lib/optim/torch_lr_schedulers.h"

namespace xtrain {

// Throws xtrain::Error, one line naming the flag, for a value torch would refuse or fail on:
// an unknown scheduler or warmup method, factors out of range, milestones that do not increase,
// and a cosine schedule with no epoch after the warmup (its T_max would be 0 or less).
void check_torchvision_lr_options(const TorchvisionLROptions& options, int num_epochs);

// train.py's schedulers on `group`, built in train.py's order (the main one first).
std::unique_ptr<torch_lr::Scheduler> torchvision_lr_schedulers(const TorchvisionLROptions& options,
                                                               int num_epochs,
                                                               torch_lr::ParamGroup& group);

class TorchvisionLR : public LRScheduler {
 public:
  // lr: the base rate; steps_per_epoch: the optimizer steps after which the schedulers step.
  TorchvisionLR(const TorchvisionLROptions& options, double lr, int num_epochs,
                int64_t steps_per_epoch);
  TorchvisionLR(const TorchvisionLR&) = delete;  // the schedulers point at this one's group_
  TorchvisionLR& operator=(const TorchvisionLR&) = delete;
  float lr() const override { return lr_; }
  void step() override;
  void seek(int64_t steps) override;

 private:
  void restart();  // the state before the first step

  const TorchvisionLROptions options_;
  const double base_lr_;
  const int num_epochs_;
  const int64_t steps_per_epoch_;
  torch_lr::ParamGroup group_;  // the schedulers hold a reference to it
  std::unique_ptr<torch_lr::Scheduler> schedulers_;
  int64_t steps_ = 0;  // optimizer steps taken
  float lr_ = 0.0f;
};

}  // namespace xtrain
