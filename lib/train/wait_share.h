// WaitShare: the share of a span of time a core spent waiting for data (the training lines'
// data wait and the status line's).
#pragma once

#include <algorithm>

#include "lib/train/metrics.h"

namespace xtrain {

class WaitShare {
 public:
  void add(double seconds) { waited_ += seconds; }
  double share() const {
    const double seconds = seconds_since(start_);
    return seconds > 0 ? std::min(1.0, waited_ / seconds) : 0.0;
  }
  void restart() { *this = WaitShare(); }

 private:
  Metrics::Clock::time_point start_ = Metrics::Clock::now();
  double waited_ = 0.0;
};

}  // namespace xtrain
