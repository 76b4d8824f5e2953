// AllReduce: the mean of one flat float buffer across the replicas of a Mesh, and the sum of a
// few doubles (evaluation counts, votes). Core r sums slice r of every replica's buffer in
// replica order 0..N-1, scales by 1/N and writes it back into every replica (a reduce-scatter
// and an all-gather through shared memory). The fixed order makes results bitwise reproducible,
// and every replica ends with the same bytes.
// Not here: creating threads (Mesh), what the buffer holds (Replica).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "lib/parallel/barrier.h"

namespace xtrain {

class AllReduce {
 public:
  static constexpr int kMaxSums = 8;

  // `barrier` is the one every replica's thread meets in.
  AllReduce(int num_replicas, Barrier& barrier);

  // Called by every core with its own buffer (the same n everywhere); returns when every
  // replica's buffer holds the mean. Throws MeshAborted if the mesh stops meanwhile.
  void mean(int rank, float* data, size_t n);
  // values[0, count) become their sums over the cores, added in rank order, on every core.
  void sum(int rank, double* values, int count);

 private:
  const int num_replicas_;
  Barrier& barrier_;
  std::vector<float*> buffers_;                          // per rank, during mean()
  std::vector<std::array<double, kMaxSums>> sum_slots_;  // per rank, during sum()
};

}  // namespace xtrain
