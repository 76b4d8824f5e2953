// The one order in which replicas' buffers are added, inside a process (AllReduce) and across
// processes (ProcessGroup): the pairwise tree 0+1, 2+3, ..., then (0+1)+(2+3), ... Because a
// process's cores form a whole subtree when their number is a power of two, summing each
// process's cores and then the processes gives the same bytes as summing every replica at once.
#pragma once

#include <Eigen/Core>
#include <cstddef>

namespace xtrain {

// out[0, len) becomes the tree sum of blocks[0..count)[0, len), count >= 1; out may be one of
// the blocks, which are clobbered. The last add writes out, so a sum meant for another buffer
// needs no copy.
inline void pairwise_sum_into(float* out, float* const* blocks, int count, size_t len) {
  using Block = Eigen::Map<Eigen::ArrayXf>;
  const auto n = static_cast<Eigen::Index>(len);
  if (count == 1) {
    if (out != blocks[0]) Block(out, n) = Block(blocks[0], n);
    return;
  }
  int stride = 1;
  for (; 2 * stride < count; stride *= 2) {
    for (int r = 0; r + stride < count; r += 2 * stride)
      Block(blocks[r], n) += Block(blocks[r + stride], n);
  }
  Block(out, n) = Block(blocks[0], n) + Block(blocks[stride], n);
}

// blocks[0][0, len) becomes the tree sum of blocks[0..count)[0, len); the others are clobbered.
inline void pairwise_sum(float* const* blocks, int count, size_t len) {
  pairwise_sum_into(blocks[0], blocks, count, len);
}

}  // namespace xtrain
