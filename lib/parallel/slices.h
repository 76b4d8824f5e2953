// How a buffer of n floats is cut into one slice per rank, for the all-reduces (the cores of a
// process, the processes of a job): slice r is [slice_start(n, r, size), slice_start(n, r + 1,
// size)). Slices start on cache lines (16 floats), so two cores never write one line.
#pragma once

#include <algorithm>
#include <cstddef>

namespace xtrain {

constexpr size_t kLineFloats = 16;

inline size_t slice_start(size_t n, int rank, int size) {
  if (rank == size) return n;
  return std::min(n, n * rank / size / kLineFloats * kLineFloats);
}

}  // namespace xtrain
