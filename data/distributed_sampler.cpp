#include "data/distributed_sampler.h"

#include <numeric>
#include <utility>

#include "data/rng.h"
#include "lib/base/check.h"

namespace xtrain {
namespace {

constexpr uint64_t kShuffleStream = 0x5348554646ull;  // keeps shuffles apart from augmentations

// RASampler keeps whole 256s of the data set's images, dealt out to the replicas.
constexpr int64_t kRepeatedAugmentationUnit = 256;

bool repeats(const SamplerOptions& o) { return o.train && o.repetitions > 0; }

int64_t samples_per_replica(const SamplerOptions& o) {
  const int64_t n = o.dataset_size, r = o.num_replicas;
  if (!o.train) return n / r + (o.rank < n % r ? 1 : 0);
  if (repeats(o)) return n / kRepeatedAugmentationUnit * kRepeatedAugmentationUnit / r;
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
  XTRAIN_CHECK(options.repetitions >= 0, "--ra_reps must be >= 1, got {}", options.repetitions);
  num_samples_ = samples_per_replica(options);
  XTRAIN_CHECK(!repeats(options) || num_samples_ > 0,
               "--ra_sampler keeps whole 256s of the training set's images, dealt out to {} "
               "replicas: {} images leave none",
               options.num_replicas, options.dataset_size);
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
  // With repetitions, position p of the repeated list is order[p / repetitions]; padding again
  // repeats the list from its start (RASampler's `indices += indices[:total_size - len]`).
  const int64_t reps = repeats(options_) ? options_.repetitions : 1;
  std::vector<int64_t> shard(num_samples_);
  for (int64_t k = 0; k < num_samples_; ++k) {
    shard[k] = order[(options_.rank + k * options_.num_replicas) % (n * reps) / reps];
  }
  return shard;
}

}  // namespace xtrain
