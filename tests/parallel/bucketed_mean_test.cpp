// BucketedMean: where buckets begin, the mean it leaves in every replica (byte for byte the
// tree-sum mean, whatever the buckets and however backward's progress arrives), a bucket reduced
// while backward still runs, and an abort that frees the waiting cores. In one process here;
// tests/mpi/ checks it across processes.
#include "lib/parallel/bucketed_mean.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "lib/parallel/barrier.h"
#include "tests/parallel/tree_sum_reference.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using Starts = std::vector<size_t>;

TEST(BucketStarts, CutsWhereABucketReachesTheCap) {
  // Layers begin at 0, 10, 30, 35, 90 of 100 floats; backward finishes 90.. first.
  const std::vector<size_t> cuts = {0, 10, 30, 35, 90};
  EXPECT_EQ(bucket_starts(cuts, 100, 0), (Starts{90, 35, 30, 10, 0}));
  EXPECT_EQ(bucket_starts(cuts, 100, 10), (Starts{90, 35, 10, 0}));  // 10, 55, 25, then 10
  EXPECT_EQ(bucket_starts(cuts, 100, 60), (Starts{35, 0}));
  EXPECT_EQ(bucket_starts(cuts, 100, 1000), (Starts{0}));
  // Any order, repeats (nodes without parameters) and cuts at the end are all the same.
  EXPECT_EQ(bucket_starts({100, 35, 90, 35, 0, 10, 30, 100}, 100, 10), (Starts{90, 35, 10, 0}));
  EXPECT_EQ(bucket_starts({}, 0, 10), (Starts{0}));
}

// Runs `steps` steps of `cores` cores, whose backward reports the offsets `progress` (falling,
// ending at 0) one by one, with a yield between, and checks each step's buffers against the
// tree-sum mean.
void expect_tree_mean(int cores, const Starts& starts, const std::vector<size_t>& progress,
                      int steps) {
  const size_t n = 20011;  // not a multiple of the chunk or of the slice alignment
  BucketedMean mean(cores, ProcessGroup::alone(), starts, n);
  for (int step = 0; step < steps; ++step) {
    std::vector<std::vector<float>> buffers;
    for (int r = 0; r < cores; ++r) buffers.push_back(testing::random_floats(n, 100 * step + r));
    std::vector<float> expected = testing::tree_sum(buffers);
    for (float& x : expected) x *= 1.0f / static_cast<float>(cores);
    std::vector<std::thread> threads;
    for (int rank = 0; rank < cores; ++rank) {
      threads.emplace_back([&, rank] {
        mean.start(rank, buffers[rank].data());
        for (size_t offset : progress) {
          std::this_thread::yield();
          mean.ready(rank, offset);
        }
        mean.finish(rank);
      });
    }
    for (std::thread& t : threads) t.join();
    for (int r = 0; r < cores; ++r) EXPECT_EQ(buffers[r], expected) << "replica " << r;
  }
}

TEST(BucketedMean, LeavesTheTreeMeanInEveryReplica) {
  const std::vector<size_t> layers = {18000, 12000, 12000, 7001, 3000, 0};
  for (int cores : {1, 2, 3, 4}) {
    SCOPED_TRACE(cores);
    expect_tree_mean(cores, {0}, layers, 2);                   // one bucket
    expect_tree_mean(cores, {18000, 7001, 0}, layers, 2);      // three
    expect_tree_mean(cores, {18000, 12000, 3000, 0}, {0}, 2);  // all final at once
  }
}

// The first bucket is everywhere while the cores have not yet finished the rest.
TEST(BucketedMean, ReducesABucketWhileBackwardRuns) {
  const size_t n = 1000, split = 600;
  BucketedMean mean(2, ProcessGroup::alone(), {split, 0}, n);
  std::vector<std::vector<float>> buffers = {std::vector<float>(n, 1.0f),
                                             std::vector<float>(n, 3.0f)};
  std::atomic<bool> first_bucket_seen{false};
  std::vector<std::thread> threads;
  for (int rank = 0; rank < 2; ++rank) {
    threads.emplace_back([&, rank] {
      mean.start(rank, buffers[rank].data());
      mean.ready(rank, split);
      if (rank == 0) {
        // Backward of the rest waits here until the mean of [split, n) is everywhere.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (mean.reduced_from() != split && std::chrono::steady_clock::now() < deadline) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        first_bucket_seen = mean.reduced_from() == split && buffers[1][n - 1] == 2.0f &&
                            buffers[0][split] == 2.0f && buffers[1][split - 1] == 3.0f;
      }
      mean.ready(rank, 0);
      mean.finish(rank);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_TRUE(first_bucket_seen);
  EXPECT_EQ(buffers[0], std::vector<float>(n, 2.0f));
  EXPECT_EQ(buffers[1], std::vector<float>(n, 2.0f));
}

TEST(BucketedMean, AbortWakesTheWaitingCores) {
  BucketedMean mean(2, ProcessGroup::alone(), {0}, 100);
  std::vector<float> buffer(100, 1.0f);
  std::atomic<int> aborted{0};
  std::thread waiting([&] {
    mean.start(0, buffer.data());
    mean.ready(0, 0);
    try {
      mean.finish(0);  // core 1 never starts: only the abort ends this wait
    } catch (const MeshAborted&) {
      ++aborted;
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  mean.abort();
  waiting.join();
  EXPECT_EQ(aborted, 1);
  EXPECT_THROW(mean.finish(1), MeshAborted);
}

}  // namespace
}  // namespace xtrain
