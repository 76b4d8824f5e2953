// WorkerThreads: N threads that each run body(i) once, joined when the object goes away. The
// body decides when to return (typically when a queue it waits on is closed), so the owner must
// make every body return before destroying this, or the destructor waits for them.
// All or none: the bodies start once every thread exists. When one cannot be created (no address
// space left for its stack under `ulimit -v`, or the thread limit), the threads made so far
// return without running their body and the constructor throws xtrain::Error: an error line
// instead of std::terminate, and no body left waiting for a sibling that never came.
// Not here: what the workers do or how they are woken (their owner's queue).
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
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
  enum class Start { kWaiting, kGo, kCancelled };
  // Lets every thread made so far go (kGo) or return at once (kCancelled).
  void decide(Start start);
  // Waits for decide(); true when the body is to run.
  bool wait_for_go();
  void join_all();

  std::mutex mutex_;
  std::condition_variable decided_;
  Start start_ = Start::kWaiting;
  std::vector<std::thread> threads_;
};

}  // namespace xtrain
