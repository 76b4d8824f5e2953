// Exec: where a kernel may run its work (a core's thread pool, or just the calling thread), and
// parallel_for, the one way kernels split work. Chunks are fixed contiguous ranges that depend
// only on n and the thread count, so results never depend on timing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>

#include "lib/parallel/thread_pool.h"

namespace xtrain {

struct Exec {
  ThreadPool* pool = nullptr;  // null: everything runs on the calling thread
  int num_threads() const { return pool ? pool->num_threads() : 1; }
};

// Runs fn(begin, end) over contiguous chunks covering [0, n). Chunks hold at least min_chunk
// items (small loops stay on one thread, where waking others costs more than it saves).
void parallel_for(const Exec& ex, int64_t n, const std::function<void(int64_t, int64_t)>& fn,
                  int64_t min_chunk = 1);

}  // namespace xtrain
