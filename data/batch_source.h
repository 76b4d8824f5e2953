// BatchSource: one core's stream of batches from a data set (its shard), one epoch at a time,
// and BatchSourceFactory, which makes the source of each core. The trainer copies each batch
// into its plan's input, so a source may prefetch into buffers of its own.
// Not here: decoding, shuffling, sharding (the sources in this folder), training (lib/train/).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "lib/tensor/elements.h"

namespace xtrain {

class BatchSource {
 public:
  virtual ~BatchSource() = default;

  // Batches this source yields in one epoch; fewer when a test source leaves unreadable images
  // out (see next()).
  virtual int64_t batches_per_epoch() const = 0;
  // Begins epoch `epoch` (1-based): a source that shuffles reshuffles here, from its seed and
  // the epoch, so every run sees the same order.
  virtual void start_epoch(int epoch) = 0;
  // Writes the next batch of the epoch: images [n, H, W, C] as normalized floats into `images`
  // (room for a full batch; rounded as write_floats does where they are bfloat16, as a
  // bfloat16 plan stores its input) and labels [n] into `labels`. Returns n, which is below the
  // batch size only for a last partial batch; 0 when the epoch is over, and only then. A training
  // source replaces an unreadable image, so every sample of its epoch fills a slot. A test
  // source scores each readable image once and leaves the unreadable ones out: its batches are
  // the next readable images, so the epoch may end early and its last batch be smaller.
  virtual int next(Elements images, int32_t* labels) = 0;
  // Ends the source early (another core failed, or the run was interrupted): a next() that is
  // waiting, or any later one, returns 0 at once. Safe to call from any thread.
  virtual void close() {}
  // Unreadable images skipped so far, over all epochs.
  virtual int64_t skipped_images() const { return 0; }
};

// Makes the source of core `rank` of `num_replicas`.
using BatchSourceFactory = std::function<std::unique_ptr<BatchSource>(int rank, int num_replicas)>;

// What one core's source takes besides the batch it writes into, for the memory plan
// (lib/train/memory_plan.h).
struct SourceMemory {
  size_t buffers = 0;   // bytes of the images it holds ahead of the core (labels left out)
  size_t decoding = 0;  // bytes its worker threads decode images in (an allowance)
  int threads = 0;      // its worker threads
};

// The memory of one core's source of batches of batch_size (null: it takes none, as FakeData).
using SourceMemoryFor = std::function<SourceMemory(int batch_size)>;

// The largest last, partial batch that any of num_replicas cores reads in an epoch in batches of
// batch_size (0: every batch is full). A plan is compiled for it too, so it takes memory.
using PartialBatchSize = std::function<int(int num_replicas, int batch_size)>;

}  // namespace xtrain
