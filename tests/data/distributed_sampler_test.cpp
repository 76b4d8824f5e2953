// DistributedSampler: shards, padding and shuffling as torch's, checked over replicas and epochs.
#include "data/distributed_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "lib/base/check.h"

namespace xtrain {
namespace {

SamplerOptions options(int64_t n, int replicas, bool train, bool drop_last = false,
                       uint64_t seed = 42) {
  SamplerOptions o;
  o.dataset_size = n;
  o.num_replicas = replicas;
  o.train = train;
  o.drop_last = drop_last;
  o.seed = seed;
  return o;
}

// How often each index is read in `epoch` over all replicas.
std::map<int64_t, int> reads(SamplerOptions o, int epoch) {
  std::map<int64_t, int> count;
  for (int rank = 0; rank < o.num_replicas; ++rank) {
    o.rank = rank;
    for (int64_t i : DistributedSampler(o).indices(epoch)) ++count[i];
  }
  return count;
}

TEST(DistributedSampler, TrainingReadsEverySampleOnceAndPadsByRepeating) {
  // 10 samples on 3 replicas: 4 each, 12 reads: every sample once plus 2 repeats.
  const SamplerOptions o = options(10, 3, /*train=*/true);
  EXPECT_EQ(DistributedSampler(o).num_samples(), 4);
  for (int epoch = 1; epoch <= 3; ++epoch) {
    const std::map<int64_t, int> count = reads(o, epoch);
    ASSERT_EQ(count.size(), 10u);
    int repeated = 0;
    for (const auto& [index, times] : count) {
      ASSERT_GE(times, 1);
      repeated += times - 1;
    }
    EXPECT_EQ(repeated, 2);
  }
}

TEST(DistributedSampler, PaddingRepeatsThePermutationsHead) {
  // Replica r reads positions r, r + R, ... of the padded permutation, which continues with the
  // permutation's start: with 3 samples on 4 replicas, replica 3 reads position 3 = position 0.
  SamplerOptions o = options(3, 4, /*train=*/true);
  o.rank = 0;
  const int64_t first = DistributedSampler(o).indices(1)[0];
  o.rank = 3;
  EXPECT_EQ(DistributedSampler(o).indices(1), std::vector<int64_t>{first});
}

TEST(DistributedSampler, DropLastCutsTheTailInstead) {
  const SamplerOptions o = options(10, 3, /*train=*/true, /*drop_last=*/true);
  EXPECT_EQ(DistributedSampler(o).num_samples(), 3);
  const std::map<int64_t, int> count = reads(o, 1);
  EXPECT_EQ(count.size(), 9u);  // 9 different samples, none twice
  for (const auto& [index, times] : count) EXPECT_EQ(times, 1);
}

TEST(DistributedSampler, TestSetShardsAreExactAndInOrder) {
  SamplerOptions o = options(10, 3, /*train=*/false);
  const std::vector<std::vector<int64_t>> expected = {{0, 3, 6, 9}, {1, 4, 7}, {2, 5, 8}};
  for (int rank = 0; rank < 3; ++rank) {
    o.rank = rank;
    const DistributedSampler sampler(o);
    EXPECT_EQ(sampler.num_samples(), static_cast<int64_t>(expected[rank].size()));
    EXPECT_EQ(sampler.indices(1), expected[rank]);
    EXPECT_EQ(sampler.indices(2), expected[rank]);  // never shuffled
  }
}

TEST(DistributedSampler, ShufflesDeterministicallyAndDifferentlyPerEpoch) {
  const SamplerOptions o = options(100, 1, /*train=*/true);
  const DistributedSampler a(o), b(o);
  EXPECT_EQ(a.indices(1), b.indices(1));  // same seed and epoch: same order
  EXPECT_NE(a.indices(1), a.indices(2));  // a new order every epoch
  EXPECT_NE(a.indices(1), DistributedSampler(options(100, 1, true, false, 43)).indices(1));
  std::vector<int64_t> sorted = a.indices(1);
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 100; ++i) ASSERT_EQ(sorted[i], i);  // a permutation
  const std::vector<int64_t> in_order = DistributedSampler(options(100, 1, false)).indices(1);
  EXPECT_NE(a.indices(1), in_order);
}

}  // namespace
}  // namespace xtrain

namespace xtrain {
namespace {

// RASampler's __iter__ written out (torchvision's references/classification/sampler.py) over the
// same permutation: repeat each index, pad by the head, deal out, keep the 256s' share.
std::vector<int64_t> ra_sampler(const std::vector<int64_t>& order, int reps, int rank,
                                int replicas) {
  const int64_t n = static_cast<int64_t>(order.size());
  const int64_t num_samples = (n * reps + replicas - 1) / replicas;
  const int64_t total = num_samples * replicas, selected = n / 256 * 256 / replicas;
  std::vector<int64_t> repeated;
  for (int64_t index : order)
    for (int r = 0; r < reps; ++r) repeated.push_back(index);
  for (int64_t i = 0; static_cast<int64_t>(repeated.size()) < total; ++i) {
    repeated.push_back(repeated[i]);
  }
  std::vector<int64_t> out;
  for (int64_t p = rank; p < total; p += replicas) out.push_back(repeated[p]);
  out.resize(selected);
  return out;
}

TEST(DistributedSampler, RepeatedAugmentationIsTorchvisionsRASampler) {
  for (const int replicas : {1, 3, 4}) {
    for (const int reps : {1, 3}) {
      SCOPED_TRACE(std::to_string(replicas) + " replicas, " + std::to_string(reps) + " reps");
      SamplerOptions o;
      o.dataset_size = 1000;
      o.seed = 5;
      const std::vector<int64_t> order = DistributedSampler(o).indices(2);
      o.num_replicas = replicas;
      o.repetitions = reps;
      for (int rank = 0; rank < replicas; ++rank) {
        o.rank = rank;
        const DistributedSampler sampler(o);
        EXPECT_EQ(sampler.num_samples(), 768 / replicas);
        EXPECT_EQ(sampler.indices(2), ra_sampler(order, reps, rank, replicas)) << rank;
      }
    }
  }
}

TEST(DistributedSampler, RepeatedAugmentationNeedsA256ShareForEveryReplica) {
  SamplerOptions o;
  o.dataset_size = 255;  // no whole 256
  o.num_replicas = 2;
  o.repetitions = 3;
  EXPECT_THROW(DistributedSampler{o}, Error);
  o.dataset_size = 512;
  EXPECT_EQ(DistributedSampler(o).num_samples(), 256);
  o.train = false;  // the test set is never repeated
  EXPECT_EQ(DistributedSampler(o).num_samples(), 256);
  EXPECT_EQ(DistributedSampler(o).indices(0).front(), 0);
}

}  // namespace
}  // namespace xtrain
