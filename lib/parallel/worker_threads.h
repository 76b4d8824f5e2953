// WorkerThreads: N threads that each run body(i) once, joined when the object goes away. The
// body decides when to return (typically when a queue it waits on is closed), so the owner must
// make every body return before destroying this, or the destructor waits for them.
// Not here: what the workers do or how they are woken (their owner's queue).
#pragma once

#include <functional>
#include <thread>
#include <vector>

namespace xtrain {

class WorkerThreads {
 public:
  WorkerThreads(int num_threads, const std::function<void(int)>& body);
  ~WorkerThreads();
  WorkerThreads(const WorkerThreads&) = delete;
  WorkerThreads& operator=(const WorkerThreads&) = delete;

  int num_threads() const { return static_cast<int>(threads_.size()); }

 private:
  std::vector<std::thread> threads_;
};

}  // namespace xtrain
