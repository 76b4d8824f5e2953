// The two halves of a mean over the replicas of one process, for a range [begin, end) of their
// buffers, shared by AllReduce (the cores each take a slice after backward) and BucketedMean (a
// reducer thread takes a bucket while backward runs). Chunks keep the running sum in L1/L2 while
// the other replicas stream past.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstddef>
#include <vector>

#include "lib/parallel/pairwise_sum.h"

namespace xtrain {

constexpr size_t kReplicaSumChunkFloats = 4096;

// buffers[0][begin, end) becomes the pairwise tree sum of every replica's; `blocks` (count
// pointers, allocated by the caller) is scratch.
inline void add_up_replicas(float* const* buffers, int count, size_t begin, size_t end,
                            std::vector<float*>& blocks) {
  for (size_t b = begin; b < end; b += kReplicaSumChunkFloats) {
    for (int r = 0; r < count; ++r) blocks[r] = buffers[r] + b;
    pairwise_sum(blocks.data(), count, std::min(kReplicaSumChunkFloats, end - b));
  }
}

// buffers[0][begin, end) is scaled by `scale` and copied into every other replica's buffer.
inline void scale_and_copy_back(float* const* buffers, int count, size_t begin, size_t end,
                                float scale) {
  for (size_t b = begin; b < end; b += kReplicaSumChunkFloats) {
    const auto len = static_cast<Eigen::Index>(std::min(kReplicaSumChunkFloats, end - b));
    Eigen::Map<Eigen::ArrayXf> total(buffers[0] + b, len);
    total *= scale;
    for (int r = 1; r < count; ++r) Eigen::Map<Eigen::ArrayXf>(buffers[r] + b, len) = total;
  }
}

}  // namespace xtrain
