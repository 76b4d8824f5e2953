// StopWatcher: turns a stop flag into a call. A signal handler may only set a flag, but waking
// threads blocked on queues (a core waiting for data) takes locks, so a thread of its own looks
// at the flag every few milliseconds and calls on_stop once, the first time it is set.
// Destroying the watcher ends its thread within one look.
// Not here: who sets the flag (apps/train.cpp), what stopping means (its owner's on_stop).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>

#include "lib/parallel/worker_threads.h"

namespace xtrain {

class StopWatcher {
 public:
  StopWatcher(const std::atomic<bool>& flag, std::function<void()> on_stop);
  ~StopWatcher();
  StopWatcher(const StopWatcher&) = delete;
  StopWatcher& operator=(const StopWatcher&) = delete;

 private:
  void watch(const std::atomic<bool>& flag, const std::function<void()>& on_stop);

  std::mutex mutex_;
  std::condition_variable finished_changed_;
  bool finished_ = false;
  WorkerThreads thread_;  // last: starts once everything above exists, and ends first
};

}  // namespace xtrain
