// RateTracker: images/second as torch_xla's xm.RateTracker reports them. rate() is the rate since
// the previous rate() call, smoothed as 0.6 * current + 0.4 * previous reported rate (the first
// report is unsmoothed); global_rate() is the rate since the tracker was made.
#pragma once

#include <chrono>

namespace xtrain {

class RateTracker {
 public:
  using Clock = std::chrono::steady_clock;

  explicit RateTracker(Clock::time_point start = Clock::now());

  void add(double count) { count_ += count; }
  double rate(Clock::time_point now = Clock::now());
  double global_rate(Clock::time_point now = Clock::now()) const;

 private:
  static constexpr double kSmoothFactor = 0.4;

  Clock::time_point start_, partial_time_;
  double partial_count_ = 0.0;
  double count_ = 0.0;
  double partial_rate_ = -1.0;  // < 0: nothing reported yet
};

}  // namespace xtrain
