// ProcessGroup and the Mesh across processes, run by ctest under `mpirun -np 4` (tests/
// CMakeLists.txt): every process runs every test, and each builds the buffers of all ranks from
// their seeds to know the expected sums.
#include "lib/parallel/process_group.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "lib/parallel/bucketed_mean.h"
#include "lib/parallel/mesh.h"
#include "tests/parallel/tree_sum_reference.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

ProcessGroup* group = nullptr;  // the job, for the whole test run

std::vector<std::vector<float>> buffers_of(int count, size_t n, uint32_t seed) {
  std::vector<std::vector<float>> buffers;
  for (int r = 0; r < count; ++r)
    buffers.push_back(testing::random_floats(n, seed + r, -1e4f, 1e4f));
  return buffers;
}

TEST(ProcessGroup, KnowsTheJobFromTheLauncher) {
  ASSERT_EQ(group->size(), 4) << "run under mpirun -np 4";
  EXPECT_GE(group->rank(), 0);
  EXPECT_LT(group->rank(), 4);
  // One machine: every process is local, and the local ranks are the ranks.
  EXPECT_EQ(group->local_size(), 4);
  EXPECT_EQ(group->local_rank(), group->rank());
}

// Sizes around the 16-float slice alignment: empty, fewer floats than ranks, uneven slices.
TEST(ProcessGroup, FloatSumIsTheTreeSumOverRanksOnEveryRank) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{15}, size_t{47}, size_t{48}, size_t{100003}}) {
    SCOPED_TRACE(n);
    std::vector<std::vector<float>> buffers = buffers_of(group->size(), n, 100);
    const std::vector<float> expected = n > 0 ? testing::tree_sum(buffers) : std::vector<float>{};
    std::vector<float> mine = buffers[group->rank()];
    group->sum(mine.data(), n);
    EXPECT_EQ(mine, expected);
  }
}

TEST(ProcessGroup, DoubleSumCountsOverRanks) {
  double values[2] = {1.0, 10.0 * group->rank()};
  group->sum(values, 2);
  EXPECT_EQ(values[0], 4.0);
  EXPECT_EQ(values[1], 60.0);
}

TEST(ProcessGroup, AllGatherGivesEveryRanksValuesInRankOrder) {
  const int rank = group->rank();
  const std::vector<double> mine = {1.0 + rank, 0.5 * rank, -3.0 * rank};
  std::vector<double> all(3 * group->size());
  group->all_gather(mine.data(), mine.size(), all.data());
  EXPECT_EQ(all, (std::vector<double>{1, 0, 0, 2, 0.5, -3, 3, 1, -6, 4, 1.5, -9}));
}

// The first failing rank's message reaches every rank, with how many failed; none when none did.
TEST(ProcessGroup, FirstFailureIsTheLowestFailingRanksOnEveryRank) {
  EXPECT_FALSE(group->first_failure("").has_value());
  const int rank = group->rank();
  const std::string mine = rank % 2 == 1 ? "rank " + std::to_string(rank) + " failed" : "";
  const std::optional<ProcessGroup::Failure> failure = group->first_failure(mine);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->rank, 1);
  EXPECT_EQ(failure->failed, 2);
  EXPECT_EQ(failure->message, "rank 1 failed");
  const std::optional<ProcessGroup::Failure> all = group->first_failure("no such file");
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(all->rank, 0);
  EXPECT_EQ(all->failed, 4);
  EXPECT_EQ(all->message, "no such file");
}

// The root's text reaches every rank, whatever the others pass (empty, longer, other bytes).
TEST(ProcessGroup, BroadcastGivesTheRootsTextToEveryRank) {
  const int rank = group->rank();
  const std::string root_text = "lr" + std::string(1, '\0') + "0.2\n";
  const std::string mine = rank == 2 ? root_text : std::string(rank * 5, 'x');
  EXPECT_EQ(group->broadcast(2, mine), root_text);
  EXPECT_EQ(group->broadcast(0, mine), "");
}

// Two cores per process, four processes: eight replicas with ordinals 0..7, whose mean is the
// tree sum over all eight, whatever the placement.
TEST(MeshAcrossProcesses, MeanIsTheJobsTreeSumOnEveryReplica) {
  const int cores = 2, world = cores * group->size();
  const size_t n = 50021;
  Mesh mesh(cores, *group);
  ASSERT_EQ(mesh.world_size(), world);
  std::vector<std::vector<float>> all = buffers_of(world, n, 200);
  std::vector<float> expected = testing::tree_sum(all);
  for (float& x : expected) x *= 1.0f / world;
  std::vector<std::vector<float>> mine;
  for (int rank = 0; rank < cores; ++rank) mine.push_back(all[mesh.ordinal(rank)]);
  mesh.run([&](int rank) { mesh.all_reduce_mean(rank, mine[rank].data(), n); });
  for (int rank = 0; rank < cores; ++rank) EXPECT_EQ(mine[rank], expected) << "core " << rank;
}

// The same job's mean taken in buckets while the cores' "backward" still reports progress: the
// same bytes as the mean after backward, bucket for bucket (the reducer calls MPI while the
// cores run).
TEST(BucketedMeanAcrossProcesses, IsTheJobsTreeMeanOnEveryReplica) {
  const int cores = 2, world = cores * group->size();
  const size_t n = 50021;
  std::vector<std::vector<float>> all = buffers_of(world, n, 300);
  std::vector<float> expected = testing::tree_sum(all);
  for (float& x : expected) x *= 1.0f / world;
  BucketedMean mean(cores, *group, bucket_starts({0, 7, 20000, 20001, 41000}, n, 10000), n);
  std::vector<std::vector<float>> mine;
  for (int rank = 0; rank < cores; ++rank) mine.push_back(all[group->rank() * cores + rank]);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < cores; ++rank) {
    threads.emplace_back([&, rank] {
      mean.start(rank, mine[rank].data());
      for (size_t offset : std::vector<size_t>{45000, 41000, 30000, 20001, 20000, 7, 0})
        mean.ready(rank, offset);
      mean.finish(rank);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int rank = 0; rank < cores; ++rank) EXPECT_EQ(mine[rank], expected) << "core " << rank;
}

// Two cores per process: the eight replicas' values are added in ordinal order, 0 first, on every
// replica, so the bits are those of one process of eight cores (SyncBatchNorm's statistics).
TEST(MeshAcrossProcesses, SumInOrderAddsTheJobsReplicasInOrdinalOrder) {
  const int cores = 2, world = cores * group->size();
  auto values_of = [](int ordinal) {
    return std::vector<double>{std::pow(10.0, 8 - 2 * ordinal) * (1 + ordinal),
                               1.0 / (1 + ordinal)};
  };
  std::vector<double> expected = values_of(0);
  for (int ordinal = 1; ordinal < world; ++ordinal) {
    for (size_t i = 0; i < expected.size(); ++i) expected[i] += values_of(ordinal)[i];
  }
  Mesh mesh(cores, *group);
  std::vector<std::vector<double>> mine(cores);
  mesh.run([&](int rank) {
    for (int round = 0; round < 3; ++round) {
      mine[rank] = values_of(mesh.ordinal(rank));
      mesh.all_reduce().sum_in_order(rank, mine[rank].data(), mine[rank].size());
    }
  });
  for (int rank = 0; rank < cores; ++rank) EXPECT_EQ(mine[rank], expected) << "core " << rank;
}

TEST(MeshAcrossProcesses, SumAddsEveryCoreOfEveryProcess) {
  Mesh mesh(2, *group);
  std::vector<double> totals(2);
  mesh.run([&](int rank) {
    double value = 1.0 + mesh.ordinal(rank);
    mesh.all_reduce_sum(rank, &value, 1);
    totals[rank] = value;
  });
  EXPECT_EQ(totals, (std::vector<double>{36.0, 36.0}));  // 1 + 2 + ... + 8
}

}  // namespace
}  // namespace xtrain

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  xtrain::ProcessGroup processes = xtrain::ProcessGroup::from_environment();
  xtrain::group = &processes;
  return RUN_ALL_TESTS();
}
