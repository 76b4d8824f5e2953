// DistributedSampler: which samples of a data set replica `rank` of `num_replicas` reads in an
// epoch, as torch.utils.data.DistributedSampler picks them. Training shuffles every epoch from
// (seed, epoch) and pads the permutation by repeating its head so every replica gets the same
// count (or, with drop_last, cuts the tail instead); replica r takes every num_replicas-th index
// starting at r. The test set is neither shuffled nor padded, so every sample is counted exactly
// once: replicas may then differ by one sample.
// With repetitions (--ra_sampler, torchvision's RASampler, "repeated augmentation"), training
// repeats each index of the permutation that many times in a row, pads the list by its head to a
// multiple of num_replicas, deals it out the same way, and keeps floor(floor(n / 256) * 256 /
// num_replicas) samples per replica: each image of an epoch goes to `repetitions` neighbouring
// replicas, each augmenting it its own way.
// Not here: batching and reading the samples (Loader).
#pragma once

#include <cstdint>
#include <vector>

namespace xtrain {

struct SamplerOptions {
  int64_t dataset_size = 0;
  int rank = 0;
  int num_replicas = 1;
  bool train = true;       // shuffle and pad (or drop); false: the test set's exact order
  bool drop_last = false;  // training only: cut the tail instead of padding
  int repetitions = 0;     // training only: RASampler's repetitions; 0: DistributedSampler
  uint64_t seed = 0;
};

class DistributedSampler {
 public:
  explicit DistributedSampler(const SamplerOptions& options);

  // Samples this replica reads per epoch.
  int64_t num_samples() const { return num_samples_; }
  // This replica's data set indices for `epoch`, in reading order.
  std::vector<int64_t> indices(int epoch) const;

 private:
  SamplerOptions options_;
  int64_t num_samples_ = 0;
};

}  // namespace xtrain
