#include "lib/parallel/worker_threads.h"

#include "lib/base/check.h"

namespace xtrain {

WorkerThreads::WorkerThreads(int num_threads, const std::function<void(int)>& body) {
  XTRAIN_CHECK(num_threads >= 1, "WorkerThreads needs at least one thread, got {}", num_threads);
  for (int i = 0; i < num_threads; ++i) threads_.emplace_back([body, i] { body(i); });
}

WorkerThreads::~WorkerThreads() {
  for (std::thread& t : threads_) t.join();
}

}  // namespace xtrain
