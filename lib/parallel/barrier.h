// Barrier: the meeting point of a Mesh's cores, which can be aborted. When one core fails, the
// mesh aborts the barrier: every core waiting in it, and every later arrival, gets MeshAborted
// at once, so no core ever waits forever for one that will not come.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stdexcept>

namespace xtrain {

// Thrown in a core that was stopped because another core failed (not a cause of its own).
class MeshAborted : public std::runtime_error {
 public:
  MeshAborted() : std::runtime_error("stopped because another core failed") {}
};

class Barrier {
 public:
  explicit Barrier(int num_threads);

  // Returns once all num_threads threads have arrived; throws MeshAborted once aborted.
  void arrive_and_wait();
  // Wakes every waiting thread with MeshAborted, now and for every later arrival.
  void abort();

 private:
  const int num_threads_;
  std::mutex mutex_;
  std::condition_variable all_arrived_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
  bool aborted_ = false;
};

}  // namespace xtrain
