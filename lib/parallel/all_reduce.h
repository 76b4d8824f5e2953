// AllReduce: the mean of one flat float buffer across the replicas of a Mesh, and the sum of a
// few doubles (evaluation counts, votes), over this process's cores and, in a job of several
// processes, over every process's. Core r adds up slice r of every replica's buffer in the
// pairwise tree order (pairwise_sum.h), through shared memory; then one core sums the processes'
// totals (ProcessGroup, the same tree over processes); then each core scales its slice by
// 1/replicas and writes it back into every replica. The fixed order makes results bitwise
// reproducible, the same for every placement of the replicas over processes, and every replica
// ends with the same bytes.
// Not here: creating threads (Mesh), what the buffer holds (Replica), MPI (ProcessGroup).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "lib/parallel/barrier.h"
#include "lib/parallel/process_group.h"

namespace xtrain {

class AllReduce {
 public:
  static constexpr int kMaxSums = 8;

  // `barrier` is the one every replica's thread of this process meets in; `processes` the job's
  // processes (ProcessGroup::alone() without a job), each with num_replicas of them.
  AllReduce(int num_replicas, Barrier& barrier, ProcessGroup& processes);

  // Called by every core with its own buffer (the same n everywhere); returns when every
  // replica's buffer holds the mean. Throws MeshAborted if the mesh stops meanwhile. Returns the
  // seconds this core spent summing across processes (core 0 in a job, else 0).
  double mean(int rank, float* data, size_t n);
  // values[0, count) become their sums over the cores, on every core: whole numbers (counts,
  // votes), which double adds exactly in any order.
  void sum(int rank, double* values, int count);

 private:
  bool across_processes() const { return processes_.size() > 1; }

  const int num_replicas_;
  Barrier& barrier_;
  ProcessGroup& processes_;
  std::vector<float*> buffers_;                          // per rank, during mean()
  std::vector<std::vector<float*>> blocks_;              // per rank: its chunk of every buffer
  std::vector<std::array<double, kMaxSums>> sum_slots_;  // per rank, during sum()
};

}  // namespace xtrain
