#include "data/distributed_sampler.h"

#include <numeric>
#include <utility>

#include "data/rng.h"
#include "lib/base/check.h"

namespace xtrain {
namespace {

constexpr uint64_t kShuffleStream = 0x5348554646ull;  // keeps shuffles apart from augmentations

int64_t samples_per_replica(const SamplerOptions& o) {
  const int64_t n = o.dataset_size, r = o.num_replicas;
  if (!o.train) return n / r + (o.rank < n % r ? 1 : 0);
  return o.drop_last ? n / r : (n + r - 1) / r;
}

// torch.randperm's job with our generator: Fisher-Yates from (seed, epoch).
std::vector<int64_t> permutation(int64_t n, uint64_t seed, int epoch) {
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  Rng rng({seed, static_cast<uint64_t>(epoch), kShuffleStream});
  for (int64_t i = n - 1; i > 0; --i) std::swap(order[i], order[rng.randint(0, i + 1)]);
  return order;
}

}  // namespace

DistributedSampler::DistributedSampler(const SamplerOptions& options) : options_(options) {
  XTRAIN_CHECK(
      options.num_replicas >= 1 && options.rank >= 0 && options.rank < options.num_replicas,
      "DistributedSampler: rank {} of {} replicas", options.rank, options.num_replicas);
  XTRAIN_CHECK(options.dataset_size >= 0, "DistributedSampler: {} samples", options.dataset_size);
  num_samples_ = samples_per_replica(options);
}

std::vector<int64_t> DistributedSampler::indices(int epoch) const {
  const int64_t n = options_.dataset_size;
  std::vector<int64_t> order;
  if (options_.train) {
    order = permutation(n, options_.seed, epoch);
  } else {
    order.resize(n);
    std::iota(order.begin(), order.end(), 0);
  }
  // Position rank + k * num_replicas of the (padded) order; padding repeats the order from its
  // start, as DistributedSampler's `indices += indices[:padding_size]` does.
  std::vector<int64_t> shard(num_samples_);
  for (int64_t k = 0; k < num_samples_; ++k) {
    shard[k] = order[(options_.rank + k * options_.num_replicas) % n];
  }
  return shard;
}

}  // namespace xtrain
