// Mesh: N emulated TPU cores. Each core is a thread named xla:i that runs the same function on
// its own replica and meets the others in collectives (barrier, all-reduce), as TPU cores do.
// A failure on one core stops every core: the barrier is aborted, so the others leave their
// next collective at once, and the caller's abort hook wakes anything else they wait on (data
// loaders); run() then throws one error naming the core and the cause.
// In a job of several processes (ProcessGroup) each process has a Mesh of the same size; the
// all-reduces then span every process's cores, and core c of process p is replica
// p x cores + c of the job (its ordinal), as the cores of a pod are numbered.
// Not here: what a core computes (lib/train), kernel threads inside a core (ThreadPool).
#pragma once

#include <functional>
#include <mutex>
#include <string>

#include "lib/parallel/all_reduce.h"
#include "lib/parallel/barrier.h"
#include "lib/parallel/process_group.h"

namespace xtrain {

class Mesh {
 public:
  // `processes`: the job this Mesh is a part of.
  explicit Mesh(int num_cores, ProcessGroup& processes = ProcessGroup::alone());

  int num_cores() const { return num_cores_; }
  // The replicas of the job, and the job-wide ordinal of core `rank` of this process.
  int world_size() const { return num_cores_ * processes_.size(); }
  int ordinal(int rank) const { return processes_.rank() * num_cores_ + rank; }
  // Kernel threads each core may use: max(1, hardware threads / N / processes of the job on this
  // machine), so one core alone uses the whole machine and N = hardware threads runs one thread
  // per core.
  int threads_per_core() const { return threads_per_core(num_cores_, processes_.local_size()); }
  static int threads_per_core(int num_cores, int local_processes = 1);
  static std::string device_name(int ordinal);  // "xla:3"
  // Where core `rank` is, for error messages: "xla:3", or "rank 1 xla:3" in a job of several
  // processes (the launcher's own messages name the rank).
  std::string core_name(int rank) const;

  // Runs fn(rank) on every core's thread and returns when all have finished. If a core throws,
  // the others are stopped (see above; on_abort runs once, on the failing core's thread) and
  // run() throws xtrain::Error "xla:R: <cause>" for the first failure. When a core's thread
  // cannot be started (WorkerThreads), no core runs fn and run() throws that error.
  void run(const std::function<void(int rank)>& fn, const std::function<void()>& on_abort = {});

  void barrier() { barrier_.arrive_and_wait(); }
  double all_reduce_mean(int rank, float* data, size_t n) {
    return all_reduce_.mean(rank, data, n);
  }
  void all_reduce_sum(int rank, double* values, int count) { all_reduce_.sum(rank, values, count); }
  // The collectives themselves, for a core's kernels (Exec::batch_replicas).
  AllReduce& all_reduce() { return all_reduce_; }

 private:
  const int num_cores_;
  ProcessGroup& processes_;
  Barrier barrier_;
  AllReduce all_reduce_;
};

}  // namespace xtrain
