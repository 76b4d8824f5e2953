#include "lib/parallel/all_reduce.h"

#include <Eigen/Core>
#include <algorithm>

#include "lib/base/check.h"

namespace xtrain {
namespace {

// Slices start on cache lines (16 floats), so two cores never write one line; chunks keep the
// running sum in L1/L2 while the other replicas stream past.
constexpr size_t kLineFloats = 16;
constexpr size_t kChunkFloats = 4096;

size_t slice_start(size_t n, int rank, int num_replicas) {
  if (rank == num_replicas) return n;
  return std::min(n, n * rank / num_replicas / kLineFloats * kLineFloats);
}

}  // namespace

AllReduce::AllReduce(int num_replicas, Barrier& barrier)
    : num_replicas_(num_replicas),
      barrier_(barrier),
      buffers_(num_replicas, nullptr),
      sum_slots_(num_replicas) {}

void AllReduce::mean(int rank, float* data, size_t n) {
  if (num_replicas_ == 1) return;
  buffers_[rank] = data;
  barrier_.arrive_and_wait();  // every buffer is published and final
  const size_t begin = slice_start(n, rank, num_replicas_);
  const size_t end = slice_start(n, rank + 1, num_replicas_);
  const float scale = 1.0f / static_cast<float>(num_replicas_);
  for (size_t b = begin; b < end; b += kChunkFloats) {
    const auto len = static_cast<Eigen::Index>(std::min(kChunkFloats, end - b));
    // Replica 0's slice is this core's alone until the barrier: the sum builds up there.
    Eigen::Map<Eigen::ArrayXf> total(buffers_[0] + b, len);
    for (int r = 1; r < num_replicas_; ++r) total += Eigen::Map<Eigen::ArrayXf>(buffers_[r] + b, len);
    total *= scale;
    for (int r = 1; r < num_replicas_; ++r) Eigen::Map<Eigen::ArrayXf>(buffers_[r] + b, len) = total;
  }
  barrier_.arrive_and_wait();  // every slice is written back everywhere
}

void AllReduce::sum(int rank, double* values, int count) {
  XTRAIN_CHECK(count >= 0 && count <= kMaxSums, "AllReduce::sum takes at most {} values, got {}",
               kMaxSums, count);
  if (num_replicas_ == 1) return;
  std::copy_n(values, count, sum_slots_[rank].begin());
  barrier_.arrive_and_wait();
  for (int i = 0; i < count; ++i) {
    double total = 0.0;
    for (int r = 0; r < num_replicas_; ++r) total += sum_slots_[r][i];
    values[i] = total;
  }
  barrier_.arrive_and_wait();  // no core refills its slot before every core has read them all
}

}  // namespace xtrain
