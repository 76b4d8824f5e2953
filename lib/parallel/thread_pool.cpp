#include "lib/parallel/thread_pool.h"

#include "lib/base/check.h"

namespace xtrain {

ThreadPool::ThreadPool(int num_threads) {
  XTRAIN_CHECK(num_threads >= 1, "ThreadPool needs at least one thread, got {}", num_threads);
  for (int i = 1; i < num_threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::run(int num_tasks, const std::function<void(int)>& task) {
  XTRAIN_CHECK(num_tasks <= num_threads(), "ThreadPool::run: {} tasks for {} threads", num_tasks,
               num_threads());
  if (num_tasks <= 0) return;
  if (num_tasks > 1) {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = &task;
    num_tasks_ = num_tasks;
    pending_ = num_tasks - 1;
    error_ = nullptr;
    ++generation_;
  }
  if (num_tasks > 1) start_.notify_all();

  std::exception_ptr own_error;
  try {
    task(0);
  } catch (...) {
    own_error = std::current_exception();
  }
  if (num_tasks == 1) {
    if (own_error) std::rethrow_exception(own_error);
    return;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return pending_ == 0; });
  task_ = nullptr;
  if (own_error) std::rethrow_exception(own_error);
  if (error_) std::rethrow_exception(error_);
}

void ThreadPool::worker_loop(int index) {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(int)>* task = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      if (index >= num_tasks_) continue;
      task = task_;
    }
    std::exception_ptr error;
    try {
      (*task)(index);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (error && !error_) error_ = error;
    if (--pending_ == 0) done_.notify_one();
  }
}

}  // namespace xtrain
