#include "lib/parallel/stop_watcher.h"

#include <chrono>

namespace xtrain {
namespace {

// How often the flag is read: a stop is acted on well within a batch, at no measurable cost.
constexpr std::chrono::milliseconds kLookEvery{10};

}  // namespace

StopWatcher::StopWatcher(const std::atomic<bool>& flag, std::function<void()> on_stop)
    : thread_(1, [this, &flag, on_stop = std::move(on_stop)](int) { watch(flag, on_stop); }) {}

StopWatcher::~StopWatcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  finished_changed_.notify_all();  // the watcher returns; then thread_ joins it
}

void StopWatcher::watch(const std::atomic<bool>& flag, const std::function<void()>& on_stop) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!finished_) {
    if (flag.load()) {
      lock.unlock();
      on_stop();
      return;
    }
    finished_changed_.wait_for(lock, kLookEvery);
  }
}

}  // namespace xtrain
