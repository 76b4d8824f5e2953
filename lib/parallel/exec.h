// Exec: where a kernel may run its work (a core's thread pool, or just the calling thread), and
// parallel_for, the one way kernels split work. Chunks are fixed contiguous ranges that depend
// only on n and the thread count, so results never depend on timing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>

#include "lib/parallel/thread_pool.h"

namespace xtrain {

class AllReduce;

struct Exec {
  ThreadPool* pool = nullptr;  // null: everything runs on the calling thread
  // Per-thread scratch for kernels that need blocks of their own on every thread (GEMM's packed
  // panels): num_threads() slices of kernels::thread_scratch_floats(), taken from a Plan's arena.
  // Null outside plans (tests, tools): such a kernel then allocates its blocks for the call.
  float* scratch = nullptr;
  // The replicas whose batches a training BatchNorm normalizes as one batch (--sync_bn,
  // PyTorch's SyncBatchNorm): their collectives and this core's rank in its Mesh. Null: each
  // replica's batch on its own.
  AllReduce* batch_replicas = nullptr;
  int replica_rank = 0;
  int num_threads() const { return pool ? pool->num_threads() : 1; }
};

// Runs fn(begin, end) over contiguous chunks covering [0, n). Chunks hold at least min_chunk
// items (small loops stay on one thread, where waking others costs more than it saves).
void parallel_for(const Exec& ex, int64_t n, const std::function<void(int64_t, int64_t)>& fn,
                  int64_t min_chunk = 1);
// The same, also telling fn which chunk it runs (0 <= chunk < ex.num_threads()): no two chunks of
// one call run at once with the same index, so a chunk may use scratch slice `chunk`.
void parallel_for_chunks(const Exec& ex, int64_t n,
                         const std::function<void(int chunk, int64_t, int64_t)>& fn,
                         int64_t min_chunk = 1);

}  // namespace xtrain
