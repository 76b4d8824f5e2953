#include "lib/parallel/thread_pool.h"

#include <chrono>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "lib/base/check.h"

namespace xtrain {
namespace {

// A training step calls parallel_for a few hundred times, mostly back to back. Waking a thread
// that sleeps on a condition variable costs a futex call on each side, a visible share of a small
// model's step in a VM, so both sides first spin this long on the atomic that ends their wait, and
// only then sleep.
constexpr auto kSpin = std::chrono::microseconds(50);

// Polls done() until it holds or kSpin has passed; the caller then waits on its condition.
template <typename Done>
void spin_until(Done&& done) {
  const auto end = std::chrono::steady_clock::now() + kSpin;
  do {
    for (int i = 0; i < 64; ++i) {
      if (done()) return;
#if defined(__x86_64__)
      _mm_pause();
#endif
    }
  } while (std::chrono::steady_clock::now() < end);
}

// The calling thread is thread 0: the pool starts the others.
int workers_for(int num_threads) {
  XTRAIN_CHECK(num_threads >= 1, "ThreadPool needs at least one thread, got {}", num_threads);
  return num_threads - 1;
}

}  // namespace

ThreadPool::ThreadPool(int num_threads)
    : workers_(workers_for(num_threads), [this](int i) { worker_loop(i + 1); }) {}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    generation_.fetch_add(1, std::memory_order_release);
  }
  start_.notify_all();  // every worker returns; then workers_ joins them
}

void ThreadPool::run(int num_tasks, const std::function<void(int)>& task) {
  XTRAIN_CHECK(num_tasks <= num_threads(), "ThreadPool::run: {} tasks for {} threads", num_tasks,
               num_threads());
  if (num_tasks <= 0) return;
  if (num_tasks > 1) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = &task;
      num_tasks_ = num_tasks;
      pending_.store(num_tasks - 1, std::memory_order_relaxed);
      error_ = nullptr;
      generation_.fetch_add(1, std::memory_order_release);
    }
    start_.notify_all();
  }

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
  spin_until([this] { return pending_.load(std::memory_order_acquire) == 0; });
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return pending_.load(std::memory_order_relaxed) == 0; });
  task_ = nullptr;
  if (own_error) std::rethrow_exception(own_error);
  if (error_) std::rethrow_exception(error_);
}

void ThreadPool::worker_loop(int index) {
  uint64_t seen = 0;
  for (;;) {
    spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; });
    const std::function<void(int)>* task = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
      if (stopping_) return;
      seen = generation_.load(std::memory_order_relaxed);
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
    if (pending_.fetch_sub(1, std::memory_order_release) == 1) done_.notify_one();
  }
}

}  // namespace xtrain
