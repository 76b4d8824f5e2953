// Mesh: N emulated TPU cores. Each core is a thread named xla:i that runs the same function on
// its own replica and meets the others in collectives (barrier, all-reduce), as TPU cores do.
// A failure on one core stops every core: the barrier is aborted, so the others leave their
// next collective at once, and the caller's abort hook wakes anything else they wait on (data
// loaders); run() then throws one error naming the core and the cause.
// Not here: what a core computes (lib/train), kernel threads inside a core (ThreadPool).
#pragma once

#include <functional>
#include <mutex>
#include <string>

#include "lib/parallel/all_reduce.h"
#include "lib/parallel/barrier.h"

namespace xtrain {

class Mesh {
 public:
  explicit Mesh(int num_cores);

  int num_cores() const { return num_cores_; }
  // Kernel threads each core may use: max(1, hardware threads / N), so one core uses the whole
  // machine and N = hardware threads runs one thread per core.
  int threads_per_core() const { return threads_per_core(num_cores_); }
  static int threads_per_core(int num_cores);
  static std::string device_name(int rank);  // "xla:3"

  // Runs fn(rank) on every core's thread and returns when all have finished. If a core throws,
  // the others are stopped (see above; on_abort runs once, on the failing core's thread) and
  // run() throws xtrain::Error "xla:R: <cause>" for the first failure.
  void run(const std::function<void(int rank)>& fn, const std::function<void()>& on_abort = {});

  void barrier() { barrier_.arrive_and_wait(); }
  void all_reduce_mean(int rank, float* data, size_t n) { all_reduce_.mean(rank, data, n); }
  void all_reduce_sum(int rank, double* values, int count) { all_reduce_.sum(rank, values, count); }

 private:
  const int num_cores_;
  Barrier barrier_;
  AllReduce all_reduce_;
};

}  // namespace xtrain
