// The mesh's collectives and its failure handling: barriers that abort, an all-reduce that
// leaves every replica with the same mean, and a failing core that stops the others at once.
#include "lib/parallel/mesh.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "lib/base/check.h"
#include "tests/base/address_space_limit.h"
#include "tests/parallel/tree_sum_reference.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

TEST(Barrier, AbortWakesWaitersAndLaterArrivals) {
  Barrier barrier(3);
  std::atomic<int> aborted{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < 2; ++i) {
    waiters.emplace_back([&] {
      try {
        barrier.arrive_and_wait();
      } catch (const MeshAborted&) {
        ++aborted;
      }
    });
  }
  barrier.abort();
  for (std::thread& t : waiters) t.join();
  EXPECT_EQ(aborted, 2);
  EXPECT_THROW(barrier.arrive_and_wait(), MeshAborted);
}

TEST(Barrier, IsReusableAcrossGenerations) {
  Barrier barrier(2);
  std::vector<int> seen(2, 0);
  auto body = [&](int id) {
    for (int round = 1; round <= 100; ++round) {
      seen[id] = round;
      barrier.arrive_and_wait();
      EXPECT_EQ(seen[1 - id], round);  // the other thread got here too
      barrier.arrive_and_wait();
    }
  };
  std::thread other(body, 1);
  body(0);
  other.join();
}

// Each replica's buffer is different; afterwards every replica holds the mean, byte for byte
// the same, and equal to the tree sum over the replicas times 1/N.
TEST(AllReduce, MeanIsIdenticalOnEveryReplica) {
  for (int n : {2, 3, 4, 5, 6}) {
    SCOPED_TRACE(n);
    const size_t size = 100003;  // not a multiple of the slice alignment
    std::vector<std::vector<float>> buffers;
    for (int r = 0; r < n; ++r) buffers.push_back(testing::random_floats(size, 10 + r));
    std::vector<float> expected = testing::tree_sum(buffers);
    for (float& x : expected) x *= 1.0f / n;
    Mesh mesh(n);
    mesh.run([&](int rank) { mesh.all_reduce_mean(rank, buffers[rank].data(), size); });
    for (int r = 0; r < n; ++r) EXPECT_EQ(buffers[r], expected) << "replica " << r;
  }
}

TEST(AllReduce, SumAddsEveryCoresValues) {
  Mesh mesh(3);
  std::vector<std::vector<double>> results(3);
  mesh.run([&](int rank) {
    for (int round = 0; round < 50; ++round) {  // slots are reused safely round after round
      double values[2] = {1.0 + rank, 10.0 * rank + round};
      mesh.all_reduce_sum(rank, values, 2);
      if (round == 49) results[rank] = {values[0], values[1]};
    }
  });
  for (int r = 0; r < 3; ++r) EXPECT_EQ(results[r], (std::vector<double>{6.0, 30.0 + 3 * 49}));
}

// The values of replica r, size n, for round `round`: doubles far apart in magnitude, so that the
// order of the adds shows in the bits.
std::vector<double> replica_values(int r, size_t n, int round) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = (1.0 + r + i) * std::pow(10.0, (r * 7 + i + round) % 17 - 8);
  return v;
}

// Every core ends with the sum added replica after replica, 0 first, whatever n; the sizes change
// from call to call (one BatchNorm layer's channels, then the next's).
TEST(AllReduce, SumInOrderAddsTheReplicasInOrderOnEveryCore) {
  for (int replicas : {2, 3, 4}) {
    SCOPED_TRACE(replicas);
    Mesh mesh(replicas);
    std::vector<std::vector<std::vector<double>>> results(replicas);
    mesh.run([&](int rank) {
      for (int round = 0; round < 20; ++round) {
        std::vector<double> mine = replica_values(rank, 3 + round % 5 * 40, round);
        mesh.all_reduce().sum_in_order(rank, mine.data(), mine.size());
        results[rank].push_back(mine);
      }
    });
    for (int round = 0; round < 20; ++round) {
      std::vector<double> expected = replica_values(0, 3 + round % 5 * 40, round);
      for (int r = 1; r < replicas; ++r) {
        const std::vector<double> v = replica_values(r, expected.size(), round);
        for (size_t i = 0; i < v.size(); ++i) expected[i] += v[i];
      }
      for (int r = 0; r < replicas; ++r) {
        ASSERT_EQ(results[r][round], expected) << "replica " << r << ", round " << round;
      }
    }
  }
}

// One core of four fails in the middle of a run of collectives; the others must leave their
// barrier at once (ctest's timeout catches a hang) and run() must name the core and the cause.
TEST(Mesh, AFailingCoreStopsEveryCoreAndIsNamed) {
  Mesh mesh(4);
  std::atomic<bool> hook_ran{false};
  std::vector<float> buffer(4 * 1000, 1.0f);
  try {
    mesh.run(
        [&](int rank) {
          for (int step = 0;; ++step) {
            XTRAIN_CHECK(!(rank == 2 && step == 5), "injected failure at step {}", step);
            mesh.all_reduce_mean(rank, buffer.data() + rank * 1000, 1000);
          }
        },
        [&] { hook_ran = true; });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "xla:2: injected failure at step 5");
  }
  EXPECT_TRUE(hook_ran);
}

// A core that runs out of memory is named, as any failure, in a message made after the cores
// ended (a message takes memory too).
TEST(Mesh, ACoreOutOfMemoryIsNamed) {
  Mesh mesh(3);
  try {
    mesh.run([&](int rank) {
      if (rank == 1) throw std::bad_alloc();
      mesh.barrier();
    });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "xla:1: out of memory");
  }
}

TEST(MeshDeathTest, CoresThatCannotStartAreOneErrorAndRunNothing) {
  XTRAIN_SKIP_UNDER_SANITIZERS();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(testing::start_without_room(
                  [](std::atomic<int>& bodies) { Mesh(64).run([&](int) { ++bodies; }); }),
              ::testing::ExitedWithCode(0), "^cannot start thread [0-9]+ of 64: out of memory");
}

TEST(Mesh, CoresRunOnThreadsNamedAfterTheirDevice) {
  Mesh mesh(2);
  std::vector<std::string> names(2);
  mesh.run([&](int rank) {
    char name[16] = {};
    pthread_getname_np(pthread_self(), name, sizeof(name));
    names[rank] = name;
  });
  EXPECT_EQ(names, (std::vector<std::string>{"xla:0", "xla:1"}));
}

TEST(Mesh, SplitsTheMachinesThreadsOverTheCores) {
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(Mesh(1).threads_per_core(), hardware);
  EXPECT_EQ(Mesh(hardware).threads_per_core(), 1);
  EXPECT_EQ(Mesh(4 * hardware).threads_per_core(), 1);
  EXPECT_THROW(Mesh(0), Error);
}

}  // namespace
}  // namespace xtrain
