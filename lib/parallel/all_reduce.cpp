#include "lib/parallel/all_reduce.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "lib/base/check.h"
#include "lib/parallel/replica_sum.h"
#include "lib/parallel/slices.h"

namespace xtrain {

AllReduce::AllReduce(int num_replicas, Barrier& barrier, ProcessGroup& processes)
    : num_replicas_(num_replicas),
      barrier_(barrier),
      processes_(processes),
      buffers_(num_replicas, nullptr),
      blocks_(num_replicas, std::vector<float*>(num_replicas)),
      sum_slots_(num_replicas),
      value_slots_(num_replicas, nullptr),
      ordered_sums_(num_replicas) {}

double AllReduce::mean(int rank, float* data, size_t n) {
  if (num_replicas_ == 1 && !across_processes()) return 0.0;
  buffers_[rank] = data;
  barrier_.arrive_and_wait();  // every buffer is published and final
  const size_t begin = slice_start(n, rank, num_replicas_);
  const size_t end = slice_start(n, rank + 1, num_replicas_);
  const float scale = 1.0f / static_cast<float>(num_replicas_ * processes_.size());
  std::vector<float*>& blocks = blocks_[rank];
  double across_seconds = 0.0;
  // The sum builds up in replica 0's slice, this core's alone until the barrier.
  if (!across_processes()) {
    // Chunk by chunk, so each chunk is copied back while it is still in cache.
    for (size_t b = begin; b < end; b += kReplicaSumChunkFloats) {
      const size_t chunk_end = std::min(end, b + kReplicaSumChunkFloats);
      add_up_replicas(buffers_.data(), num_replicas_, b, chunk_end, blocks);
      scale_and_copy_back(buffers_.data(), num_replicas_, b, chunk_end, scale);
    }
  } else {
    add_up_replicas(buffers_.data(), num_replicas_, begin, end, blocks);
    barrier_.arrive_and_wait();  // replica 0 holds this process's sum
    if (rank == 0) {
      const auto start = std::chrono::steady_clock::now();
      processes_.sum(buffers_[0], n);
      across_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    barrier_.arrive_and_wait();  // ... and now the job's
    scale_and_copy_back(buffers_.data(), num_replicas_, begin, end, scale);
  }
  barrier_.arrive_and_wait();  // every slice is written back everywhere
  return across_seconds;
}

void AllReduce::sum(int rank, double* values, int count) {
  XTRAIN_CHECK(count >= 0 && count <= kMaxSums, "AllReduce::sum takes at most {} values, got {}",
               kMaxSums, count);
  if (num_replicas_ == 1 && !across_processes()) return;
  std::copy_n(values, count, sum_slots_[rank].begin());
  barrier_.arrive_and_wait();
  if (rank == 0) {
    for (int i = 0; i < count; ++i) {
      for (int r = 1; r < num_replicas_; ++r) sum_slots_[0][i] += sum_slots_[r][i];
    }
    if (across_processes()) processes_.sum(sum_slots_[0].data(), count);
  }
  barrier_.arrive_and_wait();  // slot 0 holds the sums
  std::copy_n(sum_slots_[0].begin(), count, values);
  barrier_.arrive_and_wait();  // no core refills its slot before every core has read them all
}

void AllReduce::sum_in_order(int rank, double* values, size_t n) {
  if (num_replicas_ == 1 && !across_processes()) return;
  value_slots_[rank] = values;
  barrier_.arrive_and_wait();  // every core's values are published
  if (across_processes()) {
    if (rank == 0) {
      process_values_.resize(num_replicas_ * n);
      for (int r = 0; r < num_replicas_; ++r)
        std::copy_n(value_slots_[r], n, process_values_.begin() + r * n);
      job_values_.resize(processes_.size() * process_values_.size());
      processes_.all_gather(process_values_.data(), process_values_.size(), job_values_.data());
    }
    barrier_.arrive_and_wait();  // the job's values are in job_values_
  }
  auto replica = [&](int ordinal) -> const double* {
    return across_processes() ? job_values_.data() + ordinal * n : value_slots_[ordinal];
  };
  std::vector<double>& total = ordered_sums_[rank];
  total.assign(replica(0), replica(0) + n);
  for (int ordinal = 1; ordinal < num_replicas_ * processes_.size(); ++ordinal) {
    const double* v = replica(ordinal);
    for (size_t i = 0; i < n; ++i) total[i] += v[i];
  }
  barrier_.arrive_and_wait();  // no core overwrites its values before every core has read them
  std::copy_n(total.begin(), n, values);
}

}  // namespace xtrain
