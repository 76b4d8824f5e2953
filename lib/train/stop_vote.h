// StopVote: how the cores of a Mesh agree to stop. Each core reads the stop flag (set by a signal
// handler) at the same point of a step and the cores sum their reads in an all-reduce, so a stop
// lands after the same step on every core and no core is left waiting in a collective.
// Not here: waking cores that wait for data (StopWatcher), what stopping saves (Trainer).
#pragma once

#include <atomic>

#include "lib/parallel/mesh.h"

namespace xtrain {

class StopVote {
 public:
  // `flag` may be null: nothing ever stops, and voted() costs no all-reduce.
  StopVote(const std::atomic<bool>* flag, Mesh& mesh) : flag_(flag), mesh_(mesh) {}

  // This core's own read of the flag, without a vote.
  bool requested() const { return flag_ != nullptr && flag_->load(); }
  // Whether any core read the flag set; every core must call it at the same point.
  bool voted(int rank) {
    if (flag_ == nullptr) return false;
    double votes = requested() ? 1.0 : 0.0;
    mesh_.all_reduce_sum(rank, &votes, 1);
    return votes > 0.0;
  }

 private:
  const std::atomic<bool>* flag_;
  Mesh& mesh_;
};

}  // namespace xtrain
