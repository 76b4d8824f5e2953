#include "lib/optim/torch_lr_schedulers.h"

#include <algorithm>
#include <cmath>

#include "lib/base/check.h"

namespace xtrain::torch_lr {
namespace {

constexpr double kPi = 3.141592653589793;  // math.pi

// x ** n for a Python float x and int n: the int becomes a float and C's pow() does the rest.
double python_pow(double x, int64_t n) { return std::pow(x, static_cast<double>(n)); }

}  // namespace

ChainableScheduler::ChainableScheduler(ParamGroup& group)
    : group_(group), base_lr_(group.initial_lr) {}

void ChainableScheduler::step() {
  ++step_count_;
  ++last_epoch;
  group_.lr = get_lr();
}

void ChainableScheduler::step(int64_t epoch) {
  ++step_count_;
  last_epoch = epoch;
  group_.lr = closed_form_lr();
}

void ChainableScheduler::initial_step() {
  step_count_ = 0;
  step();
}

StepLR::StepLR(ParamGroup& group, int64_t step_size, double gamma)
    : ChainableScheduler(group), step_size_(step_size), gamma_(gamma) {
  XTRAIN_CHECK(step_size > 0, "StepLR: step_size must be > 0, got {}", step_size);
  initial_step();
}

double StepLR::get_lr() const {
  if (last_epoch == 0 || last_epoch % step_size_ != 0) return group_.lr;
  return group_.lr * gamma_;
}

double StepLR::closed_form_lr() const {
  return base_lr_ * python_pow(gamma_, last_epoch / step_size_);
}

MultiStepLR::MultiStepLR(ParamGroup& group, std::vector<int64_t> milestones, double gamma)
    : ChainableScheduler(group),
      milestones_((std::sort(milestones.begin(), milestones.end()), std::move(milestones))),
      gamma_(gamma) {
  initial_step();
}

double MultiStepLR::get_lr() const {
  const auto times = std::count(milestones_.begin(), milestones_.end(), last_epoch);
  if (times == 0) return group_.lr;
  return group_.lr * python_pow(gamma_, times);
}

double MultiStepLR::closed_form_lr() const {
  const auto passed = std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch) -
                      milestones_.begin();  // bisect_right
  return base_lr_ * python_pow(gamma_, passed);
}

ConstantLR::ConstantLR(ParamGroup& group, double factor, int64_t total_iters)
    : ChainableScheduler(group), factor_(factor), total_iters_(total_iters) {
  XTRAIN_CHECK(factor >= 0.0 && factor <= 1.0, "ConstantLR: factor must be in [0, 1], got {}",
               factor);
  initial_step();
}

double ConstantLR::get_lr() const {
  if (last_epoch == 0) return group_.lr * factor_;
  if (last_epoch != total_iters_) return group_.lr;
  return group_.lr * (1.0 / factor_);
}

double ConstantLR::closed_form_lr() const {
  return base_lr_ * (factor_ + (last_epoch >= total_iters_ ? 1.0 - factor_ : 0.0));
}

LinearLR::LinearLR(ParamGroup& group, double start_factor, double end_factor, int64_t total_iters)
    : ChainableScheduler(group),
      start_factor_(start_factor),
      end_factor_(end_factor),
      total_iters_(total_iters) {
  XTRAIN_CHECK(start_factor >= 0.0 && start_factor <= 1.0 && end_factor >= 0.0 && end_factor <= 1.0,
               "LinearLR: factors must be in [0, 1], got {} and {}", start_factor, end_factor);
  initial_step();
}

double LinearLR::get_lr() const {
  if (last_epoch == 0) return group_.lr * start_factor_;
  if (last_epoch > total_iters_) return group_.lr;
  const double slope = end_factor_ - start_factor_;
  return group_.lr * (1.0 + slope / (static_cast<double>(total_iters_) * start_factor_ +
                                     static_cast<double>(last_epoch - 1) * slope));
}

double LinearLR::closed_form_lr() const {
  const double slope = end_factor_ - start_factor_;
  return base_lr_ *
         (start_factor_ + slope * static_cast<double>(std::min(total_iters_, last_epoch)) /
                              static_cast<double>(total_iters_));
}

ExponentialLR::ExponentialLR(ParamGroup& group, double gamma)
    : ChainableScheduler(group), gamma_(gamma) {
  initial_step();
}

double ExponentialLR::get_lr() const {
  if (last_epoch == 0) return group_.lr;
  return group_.lr * gamma_;
}

double ExponentialLR::closed_form_lr() const { return base_lr_ * python_pow(gamma_, last_epoch); }

CosineAnnealingLR::CosineAnnealingLR(ParamGroup& group, int64_t t_max, double eta_min)
    : ChainableScheduler(group), t_max_(t_max), eta_min_(eta_min) {
  XTRAIN_CHECK(t_max > 0, "CosineAnnealingLR: T_max must be > 0, got {}", t_max);
  initial_step();
}

double CosineAnnealingLR::get_lr() const {
  const double e = static_cast<double>(last_epoch), t = static_cast<double>(t_max_);
  if (last_epoch == 0) return group_.lr;
  if (step_count_ == 1 && last_epoch > 0) {
    return eta_min_ + (base_lr_ - eta_min_) * (1.0 + std::cos(e * kPi / t)) / 2.0;
  }
  if ((last_epoch - 1 - t_max_) % (2 * t_max_) == 0) {  // zero in C++ exactly when in Python
    return group_.lr + (base_lr_ - eta_min_) * (1.0 - std::cos(kPi / t)) / 2.0;
  }
  return (1.0 + std::cos(kPi * e / t)) / (1.0 + std::cos(kPi * (e - 1.0) / t)) *
             (group_.lr - eta_min_) +
         eta_min_;
}

double CosineAnnealingLR::closed_form_lr() const {
  const double e = static_cast<double>(last_epoch), t = static_cast<double>(t_max_);
  return eta_min_ + (base_lr_ - eta_min_) * (1.0 + std::cos(kPi * e / t)) / 2.0;
}

SequentialLR::SequentialLR(ParamGroup& group,
                           std::vector<std::unique_ptr<ChainableScheduler>> schedulers,
                           std::vector<int64_t> milestones)
    : schedulers_(std::move(schedulers)), milestones_(std::move(milestones)) {
  XTRAIN_CHECK(!schedulers_.empty() && milestones_.size() == schedulers_.size() - 1,
               "SequentialLR: expected one milestone fewer than its {} schedulers, got {}",
               schedulers_.size(), milestones_.size());
  group.lr = group.initial_lr;
  for (auto& scheduler : schedulers_) --scheduler->last_epoch;
  schedulers_[0]->initial_step();
}

void SequentialLR::step() {
  ++last_epoch_;
  const size_t index = std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) -
                       milestones_.begin();  // bisect_right
  ChainableScheduler& scheduler = *schedulers_[index];
  if (index > 0 && milestones_[index - 1] == last_epoch_) {
    scheduler.step(0);
  } else {
    scheduler.step();
  }
}

}  // namespace xtrain::torch_lr
