// MemoryPlan: the memory a run will take, computed before any of it is taken, so that a run that
// cannot fit stops at once with advice instead of being killed by the kernel midway. Each part
// counts itself with the code that sizes its buffers, and the plan adds them up. Each emulated
// core holds:
// - the arena of every plan it compiles (Plan::arena_bytes_for): training at --batch_size and
//   at the epoch's last partial batch, evaluation at test_batch() and at its partial batch, each
//   at its images' side (a replica keeps its plans for the whole run), of which only the larger
//   phase's count: training and testing give the other's arena pages back;
// - its replica's state (Replica::state_bytes_for): parameters, gradients, buffers;
// - its optimizer's state (optimizer_state_bytes): momentum, moments;
// - under --model_ema, its average of the replica (ModelEma::bytes_for): parameters, buffers;
// - its batches: the buffer the trainer copies batches through (batch_buffer_size, for the
//   larger of the training and test batches), and what its training and test sources hold
//   ahead (SourceMemory: a loader's ring, in batches of the flags' sizes);
// - its sources' decoding allowance.
// The process adds a fixed overhead, under --cache_dataset its data sets' decoded images
// (ImageCache::bytes, shared by every core), and under --fake_images=noise its samples
// (NoiseSamples::bytes_for, shared likewise). fit_cores() then picks the cores to run.
// Not here: how much memory there is (memory_budget.h), the lines printed (log_lines.h).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>

#include "data/batch_source.h"
#include "lib/graph/graph.h"
#include "lib/optim/optimizer.h"

namespace xtrain {

struct MemoryPlanOptions {
  int test_set_batch_size = 64;
  int image_size = 224;                       // of training images
  int test_image_size = 0;                    // of test images; 0: image_size
  Precision precision = Precision::kFloat32;  // bfloat16 plans store some activations in half
  bool trains = true;          // false under --evaluate: no training plan is compiled
  OptimizerOptions optimizer;  // its state is a few floats per parameter
  bool model_ema = false;      // --model_ema: each core keeps an average of its replica
  PartialBatchSize partial_train_batch, partial_test_batch;  // null: every batch is full
  // What each core's training and test sources take (image folders: their loaders); null: none
  // (--fake_data).
  SourceMemoryFor train_source_memory, test_source_memory;
  size_t cache_bytes = 0;       // --cache_dataset: the process's caches of decoded images
  size_t fake_image_bytes = 0;  // --fake_images=noise: the process's samples (noise_samples.h)
  // The job's processes, each running as many cores (their replicas share the data set), and
  // those on this machine (they share its hardware threads).
  int processes = 1;
  int local_processes = 1;
};

// One core's need, in bytes.
struct CoreMemory {
  size_t plans = 0;      // the arenas of its compiled plans
  size_t replica = 0;    // parameters, gradients, buffers
  size_t optimizer = 0;  // the optimizer's state
  size_t ema = 0;        // --model_ema's average of the replica
  size_t batches = 0;    // its batch buffer and what its sources hold ahead
  size_t decoding = 0;   // its sources' decoding allowance

  size_t total() const { return plans + replica + optimizer + ema + batches + decoding; }
};

class MemoryPlan {
 public:
  // The binary, its libraries (OpenCV) and the allocator before any core exists.
  static constexpr size_t kProcessBytes = size_t{64} << 20;

  MemoryPlan(std::shared_ptr<const Graph> graph, MemoryPlanOptions options);

  // The arena of one plan of this graph at this batch size (0 for an empty batch), run on
  // kernel_threads threads.
  size_t plan_bytes(int batch_size, bool training, int kernel_threads) const;
  // The largest test batch a core of num_cores gets: --test_set_batch_size, or the largest test
  // shard of a core when that is smaller (a 50-image validation set never fills a batch of 512).
  int test_batch(int num_cores) const;
  int test_set_batch_size() const { return options_.test_set_batch_size; }
  int test_image_size() const {
    return options_.test_image_size > 0 ? options_.test_image_size : options_.image_size;
  }
  // This plan with another --test_set_batch_size.
  MemoryPlan with_test_set_batch_size(int test_set_batch_size) const;
  // One core's need when num_cores cores train at batch_size images each.
  CoreMemory core(int num_cores, int batch_size) const;
  // Every core's need plus the process's.
  size_t total(int num_cores, int batch_size) const;
  size_t cache_bytes() const { return options_.cache_bytes; }
  // The address space the threads of num_cores cores at batch_size reserve for their stacks:
  // each core's own thread, its kernel threads and its sources' workers, and the process's stop
  // watcher and gradient reducer. Counted against `ulimit -v` only (memory_budget.h): a stack
  // takes address space at once but memory only as it is used.
  size_t thread_stacks(int num_cores, int batch_size) const;

 private:
  // What each core's training source of batch_size and its test source take.
  SourceMemory train_source(int batch_size) const;
  SourceMemory test_source() const;

  std::shared_ptr<const Graph> graph_;
  MemoryPlanOptions options_;
};

// The cores a run uses and what they need.
struct CoreFit {
  int num_cores = 1;
  size_t core_bytes = 0;   // one core's need
  size_t total_bytes = 0;  // every core's plus the process's
  size_t cache_bytes = 0;  // of the process's: --cache_dataset's decoded images
  // No --num_cores, and fewer than max_cores fit: what max_cores would have needed (else 0).
  size_t capped_from_bytes = 0;
};

// Picks the cores for a run at batch_size images per core, given the bytes available (nullopt:
// unknown, nothing is checked). asked_cores is --num_cores, or 0 when not given: then as many as
// fit up to max_cores (the hardware threads), at least 1. When the asked cores, or a single one,
// do not fit, throws xtrain::Error "3 cores x batch 128 need 29.4 GB; 22.9 GB is available: use
// --batch_size=80 or --num_cores=2", suggesting the largest batch that fits at those cores and
// the most cores that fit at that batch (each when there is one). When not even batch 1 fits but
// would with a smaller --test_set_batch_size, the error says which: "...: not even batch 1 fits
// on 1 core with --test_set_batch_size=512: use --test_set_batch_size=100". Under
// --cache_dataset the error names the cache's share, and leaving it out where that would fit.
CoreFit fit_cores(const MemoryPlan& plan, int asked_cores, int max_cores, int batch_size,
                  std::optional<size_t> available);

}  // namespace xtrain
