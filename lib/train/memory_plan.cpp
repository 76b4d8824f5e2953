#include "lib/train/memory_plan.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "lib/base/address_space.h"
#include "lib/base/check.h"
#include "lib/graph/plan.h"
#include "lib/graph/replica.h"
#include "lib/graph/training_loss.h"
#include "lib/parallel/mesh.h"
#include "lib/train/batch_buffer.h"
#include "lib/train/log_lines.h"
#include "lib/train/model_ema.h"

namespace xtrain {
namespace {

// More images than any core's share of a data set holds.
constexpr int kMaxShard = std::numeric_limits<int>::max();

// The largest n in [1, most] for which fits(n) holds, or 0: fits holds up to some n, not above.
int largest_fitting(int most, const std::function<bool(int)>& fits) {
  int low = 0;
  while (low < most) {
    const int middle = low + (most - low + 1) / 2;
    if (fits(middle)) {
      low = middle;
    } else {
      most = middle - 1;
    }
  }
  return low;
}

// When not even batch 1 fits at cores because of the test batch: " with
// --test_set_batch_size=512: use --test_set_batch_size=100"; else "".
std::string test_batch_advice(const MemoryPlan& plan, int cores, size_t available) {
  const int fitting = largest_fitting(plan.test_batch(cores) - 1, [&](int batch) {
    return plan.with_test_set_batch_size(batch).total(cores, 1) <= available;
  });
  if (fitting == 0) return "";
  return fmt::format(" with --test_set_batch_size={}: use --test_set_batch_size={}",
                     plan.test_set_batch_size(), fitting);
}

}  // namespace

MemoryPlan::MemoryPlan(std::shared_ptr<const Graph> graph, MemoryPlanOptions options)
    : graph_(std::move(graph)), options_(std::move(options)) {}

size_t MemoryPlan::plan_bytes(int batch_size, bool training, int kernel_threads) const {
  if (batch_size <= 0) return 0;
  const int side = training ? options_.image_size : test_image_size();
  const Shape input{batch_size, side, side, graph_->input_channels()};
  if (!training) {
    return Plan::arena_bytes_for(*graph_, input, PlanMode::kEval, nullptr, kernel_threads,
                                 options_.precision);
  }
  const std::unique_ptr<const Layer> loss = training_loss(/*label_smoothing=*/0.0f);
  return Plan::arena_bytes_for(*graph_, input, PlanMode::kTrain, loss.get(), kernel_threads,
                               options_.precision);
}

int MemoryPlan::test_batch(int num_cores) const {
  const MemoryPlanOptions& o = options_;
  if (!o.partial_test_batch) return o.test_set_batch_size;
  // In batches larger than any shard, a core's last partial batch is its whole shard.
  const int largest_shard = o.partial_test_batch(num_cores * o.processes, kMaxShard);
  return std::max(1, std::min(o.test_set_batch_size, largest_shard));
}

MemoryPlan MemoryPlan::with_test_set_batch_size(int test_set_batch_size) const {
  MemoryPlanOptions options = options_;
  options.test_set_batch_size = test_set_batch_size;
  return MemoryPlan(graph_, std::move(options));
}

CoreMemory MemoryPlan::core(int num_cores, int batch_size) const {
  const MemoryPlanOptions& o = options_;
  const int test_batch = this->test_batch(num_cores);
  // Every replica of the job draws its shard of the data, so the partial batches depend on them
  // all, not only on this process's cores.
  auto partial = [&](const PartialBatchSize& size, int batch) {
    return size ? size(num_cores * o.processes, batch) : 0;
  };
  const int threads = Mesh::threads_per_core(num_cores, o.local_processes);
  auto plan = [&](int batch, bool training) { return plan_bytes(batch, training, threads); };
  CoreMemory need;
  // Training and testing give each other's arenas back (Replica::release_plan_memory): the
  // larger phase counts.
  if (o.trains) {
    need.plans = plan(batch_size, /*training=*/true) +
                 plan(partial(o.partial_train_batch, batch_size), /*training=*/true);
  }
  need.plans = std::max(need.plans, plan(test_batch, /*training=*/false) +
                                        plan(partial(o.partial_test_batch, test_batch), false));
  need.replica = Replica::state_bytes_for(*graph_);
  need.optimizer = optimizer_state_bytes(o.optimizer, ParamStore::sizes_for(*graph_).params);
  if (o.model_ema) need.ema = ModelEma::bytes_for(ParamStore::sizes_for(*graph_));
  const SourceMemory train = train_source(batch_size), test = test_source();
  // The trainer's batch buffer holds the larger of its training and test batches.
  const BatchBufferSize buffer =
      room_for_both(batch_buffer_size(*graph_, o.precision, o.image_size, batch_size),
                    batch_buffer_size(*graph_, o.precision, test_image_size(), test_batch));
  need.batches = buffer.image_bytes() + train.buffers + test.buffers;
  need.decoding = train.decoding + test.decoding;
  return need;
}

SourceMemory MemoryPlan::train_source(int batch_size) const {
  return options_.train_source_memory ? options_.train_source_memory(batch_size) : SourceMemory{};
}

// The test loaders are made for --test_set_batch_size, before the cores are known.
SourceMemory MemoryPlan::test_source() const {
  const MemoryPlanOptions& o = options_;
  return o.test_source_memory ? o.test_source_memory(o.test_set_batch_size) : SourceMemory{};
}

size_t MemoryPlan::total(int num_cores, int batch_size) const {
  return kProcessBytes + options_.cache_bytes + options_.fake_image_bytes +
         num_cores * core(num_cores, batch_size).total();
}

size_t MemoryPlan::thread_stacks(int num_cores, int batch_size) const {
  const MemoryPlanOptions& o = options_;
  const int per_core = Mesh::threads_per_core(num_cores, o.local_processes) +
                       train_source(batch_size).threads + test_source().threads;
  const int per_process = 1 + (o.processes > 1 ? 1 : 0);  // StopWatcher, BucketedMean
  return size_t(num_cores * per_core + per_process) * thread_stack_bytes();
}

CoreFit fit_cores(const MemoryPlan& plan, int asked_cores, int max_cores, int batch_size,
                  std::optional<size_t> available) {
  auto fits = [&](int cores, int batch) {
    return !available || plan.total(cores, batch) <= *available;
  };
  CoreFit fit;
  fit.num_cores = asked_cores > 0 ? asked_cores : max_cores;
  if (!fits(fit.num_cores, batch_size)) {
    const int fitting_cores =
        largest_fitting(fit.num_cores - 1, [&](int cores) { return fits(cores, batch_size); });
    if (asked_cores > 0 || fitting_cores == 0) {
      const int cores = std::max(asked_cores, 1);
      const int fitting_batch =
          largest_fitting(batch_size - 1, [&](int batch) { return fits(cores, batch); });
      const size_t need = plan.total(cores, batch_size);
      std::string message =
          does_not_fit_message(cores, batch_size, need, *available, fitting_batch,
                               asked_cores > 0 ? fitting_cores : 0, plan.cache_bytes());
      const bool fits_without_cache = need - plan.cache_bytes() <= *available;
      if (fitting_batch == 0 && !fits_without_cache) {
        message += test_batch_advice(plan, cores, *available);
      }
      throw_error(__FILE__, __LINE__, message);
    }
    fit.capped_from_bytes = plan.total(fit.num_cores, batch_size);
    fit.num_cores = fitting_cores;
  }
  fit.core_bytes = plan.core(fit.num_cores, batch_size).total();
  fit.total_bytes = plan.total(fit.num_cores, batch_size);
  fit.cache_bytes = plan.cache_bytes();
  return fit;
}

}  // namespace xtrain
