// Loader: one core's BatchSource over a Dataset, as PyTorch's DataLoader with a
// DistributedSampler feeding torch_xla's ParallelLoader. --num_workers threads read, decode and
// transform samples straight into a ring of preallocated batches of 8-bit pixels, at most
// min(--loader_prefetch_size, num_workers * --prefetch_factor) batches ahead of the core; next()
// normalizes a batch as it copies it out (a quarter of the bytes held as normalized floats) and
// zeroes the boxes RandomErasing drew (random_erasing.h).
// Deterministic: the sample at epoch position p gets the random generator (seed, epoch, global
// position), so the batches are the same whatever the number of workers or their timing.
// An unreadable sample is skipped and counted, and its file reported once per data set; with
// `strict` the first one ends the run instead, as an UnreadableImage from next(). In training its
// slot takes the next readable sample of the epoch, so the batch stays full. The test set scores
// every readable sample once: its batches are the readable samples in epoch order, batch_size at
// a time, so they stay full (one plan size) and the last may be smaller than planned.
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

class Loader : public BatchSource {
 public:
  // The sampler's drop_last (training) also drops the last partial batch.
  Loader(std::shared_ptr<const Dataset> dataset, std::shared_ptr<UnreadableImages> unreadable,
         const SamplerOptions& sampler, const LoaderOptions& options);
  ~Loader() override;
  // What a loader with these options takes, for images of image_bytes: its images' buffers as
  // the constructor sizes them (a training loader's ring; a test loader's also the batch of
  // readable images it holds back), its workers and their decoding allowance.
  static SourceMemory memory_for(const LoaderOptions& options, int64_t image_bytes, bool train);
  size_t image_buffer_bytes() const;  // its images' buffers, as allocated

  int64_t batches_per_epoch() const override;
  void start_epoch(int epoch) override;
  int next(Elements images, int32_t* labels) override;
  void close() override;
  int64_t skipped_images() const override { return skipped_; }

 private:
  int64_t samples_per_epoch() const;
  void work();
  void load(const BatchRing::Claim& claim);
  bool try_load(int64_t index, Rng& rng, const BatchRing::Claim& claim);
  int next_readable(Elements images, int32_t* labels);
  int take_ring_batch(const Elements* into, int32_t* labels);

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
  std::atomic<bool> closed_{false};
  // Test set: the readable samples of the last batch taken from the ring that no next() has
  // returned yet, from row readable_begin_ on (8-bit pixels and boxes to erase, as in the ring),
  // and whether this epoch has scored any sample yet.
  std::vector<uint8_t> readable_images_;
  std::vector<int32_t> readable_labels_;
  std::vector<EraseBox> readable_erase_;
  size_t readable_begin_ = 0;
  bool scored_any_ = false;
  WorkerThreads workers_;  // last: starts once everything above exists
};

}  // namespace xtrain
