// WorkerThreads: every body runs once, and threads that cannot be started (here: no address space
// for their stacks) are one error, with no body run and no std::terminate.
#include "lib/parallel/worker_threads.h"

#include <gtest/gtest.h>

#include <atomic>

#include "lib/parallel/thread_pool.h"
#include "tests/base/address_space_limit.h"

namespace xtrain {
namespace {

TEST(WorkerThreads, RunsEveryBodyOnce) {
  std::atomic<int> sum{0};
  {
    WorkerThreads threads(5, [&](int i) { sum += 1 << i; });
  }
  EXPECT_EQ(sum, 31);
}

TEST(WorkerThreadsDeathTest, ThreadsThatCannotStartAreOneErrorAndRunNoBody) {
  XTRAIN_SKIP_UNDER_SANITIZERS();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(testing::start_without_room([](std::atomic<int>& bodies) {
                WorkerThreads threads(64, [&](int) { ++bodies; });
              }),
              ::testing::ExitedWithCode(0), "^cannot start thread [0-9]+ of 64: out of memory");
  EXPECT_EXIT(testing::start_without_room([](std::atomic<int>&) { ThreadPool pool(64); }),
              ::testing::ExitedWithCode(0), "^cannot start thread [0-9]+ of 63: out of memory");
}

}  // namespace
}  // namespace xtrain
