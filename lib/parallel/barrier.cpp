#include "lib/parallel/barrier.h"

#include "lib/base/check.h"

namespace xtrain {

Barrier::Barrier(int num_threads) : num_threads_(num_threads) {
  XTRAIN_CHECK(num_threads >= 1, "a barrier needs at least one thread, got {}", num_threads);
}

void Barrier::arrive_and_wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (aborted_) throw MeshAborted();
  if (++arrived_ == num_threads_) {
    arrived_ = 0;
    ++generation_;
    all_arrived_.notify_all();
    return;
  }
  const uint64_t generation = generation_;
  all_arrived_.wait(lock, [&] { return aborted_ || generation_ != generation; });
  if (generation_ == generation) throw MeshAborted();  // woken by abort(), not by the last arrival
}

void Barrier::abort() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    aborted_ = true;
  }
  all_arrived_.notify_all();
}

}  // namespace xtrain
