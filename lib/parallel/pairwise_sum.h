// The one order in which replicas' buffers are added, inside a process (AllReduce) and across
// processes (ProcessGroup): the pairwise tree 0+1, 2+3, ..., then (0+1)+(2+3), ... Because a
// process's cores form a whole subtree when their number is a power of two, summing each
// process's cores and then the processes gives the same bytes as summing every replica at once.
#pragma once

#include <Eigen/Core>
#include <cstddef>

namespace xtrain {

// blocks[0][0, len) becomes the tree sum of blocks[0..count)[0, len); the others are clobbered.
inline void pairwise_sum(float* const* blocks, int count, size_t len) {
  for (int stride = 1; stride < count; stride *= 2) {
    for (int r = 0; r + stride < count; r += 2 * stride) {
      const auto n = static_cast<Eigen::Index>(len);
      Eigen::Map<Eigen::ArrayXf>(blocks[r], n) += Eigen::Map<Eigen::ArrayXf>(blocks[r + stride], n);
    }
  }
}

}  // namespace xtrain
