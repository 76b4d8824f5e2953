// PyTorch's per-epoch LR schedulers (torch.optim.lr_scheduler, 1.13), replayed operation for
// operation in double precision, as Python computes them: the same chainable get_lr() each
// step() calls, the closed form step(epoch) takes, and the shared rate they all read and write
// (the optimizer's param_group['lr']). The chainable forms are recursive (CosineAnnealingLR's
// rate is a ratio times the previous one), so only the same operations in the same order give
// torch's values. The build compiles this file without fused multiply-adds, which Python's float
// arithmetic never uses.
// Not here: which schedulers a run builds and how xtrain steps them (torchvision_lr_schedule.h).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace xtrain::torch_lr {

// The optimizer's one parameter group, as the schedulers see it.
struct ParamGroup {
  double lr = 0.0;
  double initial_lr = 0.0;  // the rate before any scheduler stepped (torch: 'initial_lr')
};

// What a training loop calls after each epoch: scheduler.step().
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual void step() = 0;
};

// _LRScheduler, built with last_epoch=-1. The constructor of each subclass takes the initial
// step, as PyTorch's does.
class ChainableScheduler : public Scheduler {
 public:
  void step() override;      // step(): last_epoch + 1, then the chainable get_lr()
  void step(int64_t epoch);  // step(epoch): last_epoch = epoch, then the closed form
  void initial_step();       // _initial_step(): the step count restarts, then step()
  int64_t last_epoch = -1;   // SequentialLR moves it back by one

 protected:
  explicit ChainableScheduler(ParamGroup& group);
  virtual double get_lr() const = 0;
  virtual double closed_form_lr() const = 0;

  ParamGroup& group_;
  const double base_lr_;
  int64_t step_count_ = 0;
};

class StepLR final : public ChainableScheduler {
 public:
  StepLR(ParamGroup& group, int64_t step_size, double gamma);

 private:
  double get_lr() const override;
  double closed_form_lr() const override;
  const int64_t step_size_;
  const double gamma_;
};

// The milestones as PyTorch's Counter holds them: a milestone given twice decays twice.
class MultiStepLR final : public ChainableScheduler {
 public:
  MultiStepLR(ParamGroup& group, std::vector<int64_t> milestones, double gamma);

 private:
  double get_lr() const override;
  double closed_form_lr() const override;
  const std::vector<int64_t> milestones_;  // sorted
  const double gamma_;
};

class ConstantLR final : public ChainableScheduler {
 public:
  ConstantLR(ParamGroup& group, double factor, int64_t total_iters);

 private:
  double get_lr() const override;
  double closed_form_lr() const override;
  const double factor_;
  const int64_t total_iters_;
};

class LinearLR final : public ChainableScheduler {
 public:
  LinearLR(ParamGroup& group, double start_factor, double end_factor, int64_t total_iters);

 private:
  double get_lr() const override;
  double closed_form_lr() const override;
  const double start_factor_, end_factor_;
  const int64_t total_iters_;
};

class ExponentialLR final : public ChainableScheduler {
 public:
  ExponentialLR(ParamGroup& group, double gamma);

 private:
  double get_lr() const override;
  double closed_form_lr() const override;
  const double gamma_;
};

class CosineAnnealingLR final : public ChainableScheduler {
 public:
  CosineAnnealingLR(ParamGroup& group, int64_t t_max, double eta_min);

 private:
  double get_lr() const override;
  double closed_form_lr() const override;
  const int64_t t_max_;
  const double eta_min_;
};

// SequentialLR: schedulers[i] runs from milestones[i - 1] on. Its constructor resets the rate
// to initial_lr, moves every scheduler's last_epoch back by one and takes the first one's initial
// step again; at each milestone it steps the next scheduler with step(0), the closed form at 0.
class SequentialLR final : public Scheduler {
 public:
  SequentialLR(ParamGroup& group, std::vector<std::unique_ptr<ChainableScheduler>> schedulers,
               std::vector<int64_t> milestones);
  void step() override;

 private:
  std::vector<std::unique_ptr<ChainableScheduler>> schedulers_;
  const std::vector<int64_t> milestones_;
  int64_t last_epoch_ = 0;
};

}  // namespace xtrain::torch_lr
