#include "lib/train/rate_tracker.h"

namespace xtrain {

namespace {
double seconds(RateTracker::Clock::duration d) { return std::chrono::duration<double>(d).count(); }
}  // namespace

RateTracker::RateTracker(Clock::time_point start) : start_(start), partial_time_(start) {}

double RateTracker::rate(Clock::time_point now) {
  const double delta = seconds(now - partial_time_);
  if (delta <= 0.0) return 0.0;
  const double current = count_ / delta;
  const double reported = partial_rate_ < 0.0
                              ? current
                              : (1.0 - kSmoothFactor) * current + kSmoothFactor * partial_rate_;
  partial_count_ += count_;
  count_ = 0.0;
  partial_time_ = now;
  partial_rate_ = reported;
  return reported;
}

double RateTracker::global_rate(Clock::time_point now) const {
  const double delta = seconds(now - start_);
  return delta > 0.0 ? (partial_count_ + count_) / delta : 0.0;
}

}  // namespace xtrain
