// AllReduce: the mean of one flat float buffer across the replicas of a Mesh, the sum of a few
// doubles (evaluation counts, votes), and an ordered sum of per-channel doubles (SyncBatchNorm's
// statistics), over this process's cores and, in a job of several processes, over every
// process's. Core r adds up slice r of every replica's buffer in the
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
  // values[0, n) become their sums over every replica of the job, added one replica after the
  // other in the order of their ordinals (Mesh::ordinal): the same bytes on every replica, for
  // every placement and any number of replicas. Every replica's values are gathered to every
  // replica (MPI_Allgather across processes), so n is meant to be small: a few per channel.
  void sum_in_order(int rank, double* values, size_t n);

 private:
  bool across_processes() const { return processes_.size() > 1; }

  const int num_replicas_;
  Barrier& barrier_;
  ProcessGroup& processes_;
  std::vector<float*> buffers_;                          // per rank, during mean()
  std::vector<std::vector<float*>> blocks_;              // per rank: its chunk of every buffer
  std::vector<std::array<double, kMaxSums>> sum_slots_;  // per rank, during sum()
  // sum_in_order(): each rank's values; in a job, every replica's gathered by core 0 (this
  // process's, then the job's, in ordinal order); each rank's sum until every core has read the
  // values. They grow to the largest n once, so a step allocates nothing.
  std::vector<double*> value_slots_;
  std::vector<double> process_values_, job_values_;
  std::vector<std::vector<double>> ordered_sums_;
};

}  // namespace xtrain
