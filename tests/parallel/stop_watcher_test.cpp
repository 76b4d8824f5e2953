// StopWatcher: a flag set from outside (a signal handler) becomes exactly one call, and a
// watcher whose flag is never set ends quietly.
#include "lib/parallel/stop_watcher.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace xtrain {
namespace {

TEST(StopWatcher, CallsOnStopOnceWhenTheFlagIsSet) {
  std::atomic<bool> flag{false};
  std::mutex mutex;
  std::condition_variable called_changed;
  int called = 0;
  {
    StopWatcher watcher(flag, [&] {
      std::lock_guard<std::mutex> lock(mutex);
      ++called;
      called_changed.notify_all();
    });
    flag = true;
    std::unique_lock<std::mutex> lock(mutex);
    // A hang guard, not a timing goal: the watcher looks every few milliseconds.
    called_changed.wait_for(lock, std::chrono::seconds(30), [&] { return called > 0; });
  }
  EXPECT_EQ(called, 1);
}

TEST(StopWatcher, NeverCallsWithoutTheFlag) {
  std::atomic<bool> flag{false};
  int called = 0;
  {
    StopWatcher watcher(flag, [&] { ++called; });
  }
  EXPECT_EQ(called, 0);
}

}  // namespace
}  // namespace xtrain
