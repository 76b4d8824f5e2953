// Loader: one core's BatchSource over a Dataset, as PyTorch's DataLoader with a
// DistributedSampler feeding torch_xla's ParallelLoader. --num_workers threads read, decode and
// transform samples straight into a ring of preallocated batches of 8-bit pixels, at most
// min(--loader_prefetch_size, num_workers * --prefetch_factor) batches ahead of the core; next()
// normalizes a batch as it copies it out (a quarter of the bytes held as normalized floats).
// Deterministic: the sample at epoch position p gets the random generator (seed, epoch, global
// position), so the batches are the same whatever the number of workers or their timing.
// An unreadable sample is skipped and counted: its slot takes the next readable sample of the
// epoch (the batch stays full), and the file is reported once per data set; with `strict` the
// first one ends the run instead, as an UnreadableImage from next().
// Not here: which samples (DistributedSampler), what a sample is (Dataset), threads (lib/parallel).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "data/batch_ring.h"
#include "data/batch_source.h"
#include "data/dataset.h"
#include "data/distributed_sampler.h"
#include "data/unreadable_images.h"
#include "lib/parallel/worker_threads.h"

namespace xtrain {

struct LoaderOptions {
  int batch_size = 128;
  int num_workers = 4;
  int prefetch_factor = 16;      // batches in flight per worker, as PyTorch's DataLoader
  int loader_prefetch_size = 8;  // batches held ahead of the core, as torch_xla's ParallelLoader
  bool strict = false;           // the first unreadable image is an error
};

// The batches a loader with these options holds ahead of its core: its ring's buffers.
int loader_ring_slots(const LoaderOptions& options);

class Loader : public BatchSource {
 public:
  // The sampler's drop_last (training) also drops the last partial batch.
  Loader(std::shared_ptr<const Dataset> dataset, std::shared_ptr<UnreadableImages> unreadable,
         const SamplerOptions& sampler, const LoaderOptions& options);
  ~Loader() override;

  int64_t batches_per_epoch() const override;
  void start_epoch(int epoch) override;
  int next(Elements images, int32_t* labels) override;
  void close() override { ring_.close(); }
  int64_t skipped_images() const override { return skipped_; }

 private:
  int64_t samples_per_epoch() const;
  void work();
  void load(const BatchRing::Claim& claim);
  bool try_load(int64_t index, Rng& rng, uint8_t* image, int32_t* label);

  std::shared_ptr<const Dataset> dataset_;
  std::shared_ptr<UnreadableImages> unreadable_;
  SamplerOptions sampler_options_;
  DistributedSampler sampler_;
  LoaderOptions options_;
  BatchRing ring_;
  // The epoch being read; changed only while the ring is stopped.
  int epoch_ = 0;
  std::vector<int64_t> order_;
  std::atomic<int64_t> skipped_{0};
  WorkerThreads workers_;  // last: starts once everything above exists
};

}  // namespace xtrain
