#include "lib/parallel/exec.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "lib/base/check.h"

namespace xtrain {
namespace {

TEST(ParallelFor, CoversEveryIndexExactlyOnce) {
  ThreadPool pool(3);
  const Exec ex{&pool};
  for (int64_t n : {1, 2, 3, 7, 100, 1001}) {
    std::vector<std::atomic<int>> hits(n);
    parallel_for(ex, n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) hits[i]++;
    });
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << "n=" << n << " i=" << i;
  }
}

TEST(ParallelFor, ChunksAreFixedByNAndThreadCount) {
  ThreadPool pool(2);
  const Exec ex{&pool};
  std::vector<int64_t> begins(2, -1);
  parallel_for(ex, 10, [&](int64_t b, int64_t e) { begins[b == 0 ? 0 : 1] = b; });
  EXPECT_EQ(begins[0], 0);
  EXPECT_EQ(begins[1], 5);
}

TEST(ParallelFor, SmallWorkStaysOnOneChunk) {
  ThreadPool pool(2);
  int calls = 0;
  parallel_for(
      Exec{&pool}, 10, [&](int64_t b, int64_t e) { ++calls; }, /*min_chunk=*/64);
  EXPECT_EQ(calls, 1);
}

TEST(ThreadPool, RethrowsAWorkersException) {
  ThreadPool pool(2);
  EXPECT_THROW(pool.run(2,
                        [](int i) {
                          if (i == 1) throw std::runtime_error("boom");
                        }),
               std::runtime_error);
  // The pool still works afterwards.
  std::atomic<int> ran{0};
  pool.run(2, [&](int) { ran++; });
  EXPECT_EQ(ran.load(), 2);
}

TEST(ThreadPool, RejectsMoreTasksThanThreads) {
  ThreadPool pool(2);
  EXPECT_THROW(pool.run(3, [](int) {}), Error);
}

}  // namespace
}  // namespace xtrain
