// ThreadPool: a fixed set of worker threads that run the chunks of one parallel_for at a time.
// The calling thread runs chunk 0 itself, so a pool of T threads has T - 1 workers.
// Not here: how work is split (exec.h) or what it computes (kernels).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>

#include "lib/parallel/worker_threads.h"

namespace xtrain {

class ThreadPool {
 public:
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return workers_.num_threads() + 1; }

  // Runs task(i) for i in [0, num_tasks), num_tasks <= num_threads(), task i on thread i, and
  // returns when all are done. The first exception thrown by a task is rethrown here.
  void run(int num_tasks, const std::function<void(int)>& task);

 private:
  void worker_loop(int index);

  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  // Written under mutex_; atomic so that a thread may also spin on them, briefly, before it
  // sleeps on a condition variable (spin_until in thread_pool.cpp says why).
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  const std::function<void(int)>* task_ = nullptr;
  int num_tasks_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
  WorkerThreads workers_;  // last: starts once everything above exists, and ends first
};

}  // namespace xtrain
