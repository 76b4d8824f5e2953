// BucketedMean: AllReduce::mean's result for a job of several processes, taken while backward
// still runs, as PyTorch's DDP does with its gradient buckets. The buffer is cut into buckets at
// offsets where a layer's gradients begin; backward finishes the buffer from its end towards its
// start, and each core says how far it got (ready). A reducer thread of this process takes the
// buckets in that order: once every core of the process has finished one, it adds the cores'
// copies up the pairwise tree, sums the result over the processes (ProcessGroup::sum, the same
// tree), scales it by 1/replicas and writes the mean back into every core's buffer, while the
// cores go on with backward. Every element is added in AllReduce's order, so the bytes are those of
// one mean after backward, whatever the buckets.
// The reducer is the only thread of its process that calls MPI between a step's start() and the
// end of its finish(), so it never meets the cores' own collectives (MPI_THREAD_SERIALIZED).
// Not here: where the offsets come from (the Trainer, from the ParamStore), MPI (ProcessGroup).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <vector>

#include "lib/parallel/process_group.h"
#include "lib/parallel/worker_threads.h"

namespace xtrain {

// Where the buckets of an n-float buffer begin, from its end to its start: each bucket reaches
// down from the previous one's start to the first of `cuts` (offsets where a layer's gradients
// begin, any order) at least `cap` floats below; the last one begins at 0.
std::vector<size_t> bucket_starts(std::vector<size_t> cuts, size_t n, size_t cap);

class BucketedMean {
 public:
  // `starts`: bucket_starts() of the n-float buffers of the process's num_replicas cores.
  BucketedMean(int num_replicas, ProcessGroup& processes, std::vector<size_t> starts, size_t n);
  ~BucketedMean();
  BucketedMean(const BucketedMean&) = delete;
  BucketedMean& operator=(const BucketedMean&) = delete;

  // Core `rank` begins the backward that writes data[0, n): none of it is final yet.
  void start(int rank, float* data);
  // Core `rank`'s data[offset, n) is final.
  void ready(int rank, size_t offset);
  // Returns once every replica's buffer holds the mean (the whole buffer: every core must have
  // said ready(rank, 0)). Returns, on core 0, the seconds the reducer spent summing across
  // processes this step (mostly while backward ran), else 0. Throws MeshAborted after abort().
  double finish(int rank);
  // Where this step's mean begins so far: every buffer holds it in [reduced_from(), n).
  size_t reduced_from();
  // Wakes every core waiting in finish() with MeshAborted, and the reducer ends (a core failed).
  void abort();

 private:
  void reduce_steps();  // the reducer thread
  double reduce(size_t begin, size_t end);

  const int num_replicas_;
  ProcessGroup& processes_;
  const std::vector<size_t> starts_;
  const size_t n_;
  std::vector<float*> blocks_;  // the reducer's scratch for add_up_replicas

  std::mutex mutex_;
  std::condition_variable changed_;
  // Guarded by mutex_:
  std::vector<float*> buffers_;     // per core
  std::vector<size_t> ready_from_;  // per core: its data[ready_from_, n) is final
  std::vector<uint64_t> steps_;     // per core: the steps it started
  int started_ = 0;                 // cores that started the step the reducer waits for
  uint64_t finished_steps_ = 0;     // steps whose mean is everywhere
  size_t waiting_for_ = SIZE_MAX;   // the bucket start the reducer waits for
  size_t reduced_from_;             // this step's mean is in every buffer from here on
  double across_seconds_ = 0.0;     // of the last finished step
  bool aborted_ = false, stopping_ = false;
  std::exception_ptr failure_;  // the reducer's own error, if any: kept as thrown, with no copy

  WorkerThreads reducer_;  // last: starts once everything above exists, and ends first
};

}  // namespace xtrain
