#include "lib/parallel/worker_threads.h"

#include <system_error>

#include "lib/base/check.h"

namespace xtrain {

WorkerThreads::WorkerThreads(int num_threads, const std::function<void(int)>& body) {
  XTRAIN_CHECK(num_threads >= 0, "WorkerThreads needs a thread count >= 0, got {}", num_threads);
  try {
    threads_.reserve(num_threads);
    for (int i = 0; i < num_threads; ++i) {
      threads_.emplace_back([this, body, i] {
        if (wait_for_go()) body(i);
      });
    }
  } catch (const std::system_error& e) {
    decide(Start::kCancelled);
    join_all();
    throw_error(__FILE__, __LINE__,
                fmt::format("cannot start thread {} of {}: out of memory or over the thread limit "
                            "(ulimit -v, ulimit -u): {}",
                            threads_.size() + 1, num_threads, e.what()));
  } catch (...) {  // std::bad_alloc from copying the body
    decide(Start::kCancelled);
    join_all();
    throw;
  }
  decide(Start::kGo);
}

WorkerThreads::~WorkerThreads() { join_all(); }

void WorkerThreads::decide(Start start) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    start_ = start;
  }
  decided_.notify_all();
}

bool WorkerThreads::wait_for_go() {
  std::unique_lock<std::mutex> lock(mutex_);
  decided_.wait(lock, [this] { return start_ != Start::kWaiting; });
  return start_ == Start::kGo;
}

void WorkerThreads::join_all() {
  for (std::thread& t : threads_) t.join();
}

}  // namespace xtrain
