#include "lib/graph/replica.h"

#include <algorithm>
#include <chrono>

#include "lib/base/check.h"

namespace xtrain {

Replica::Replica(std::shared_ptr<const Graph> graph, int kernel_threads, Precision precision)
    : graph_(std::move(graph)),
      kernel_threads_(kernel_threads),
      precision_(precision),
      store_(*graph_) {}

size_t Replica::state_bytes_for(const Graph& graph) { return ParamStore::sizes_for(graph).bytes(); }

size_t Replica::state_bytes() const { return store_.bytes(); }

void Replica::copy_state_from(Replica& other) {
  XTRAIN_CHECK(other.graph_ == graph_, "copy_state_from needs a replica of the same graph");
  ParamStore& from = other.store();
  std::copy_n(from.params(), from.num_params(), store_.params());
  std::copy_n(from.buffers(), from.num_buffers(), store_.buffers());
  std::copy_n(from.counters(), from.num_counters(), store_.counters());
}

Plan& Replica::plan_for(const Shape& input, PlanMode mode, const Layer* loss) {
  std::unique_ptr<Plan>& plan = plans_[{input.dims(), mode, loss}];
  if (!plan) {
    const auto start = std::chrono::steady_clock::now();
    plan = std::make_unique<Plan>(*graph_, store_, input, mode, loss, kernel_threads_, precision_);
    compile_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return *plan;
}

void Replica::release_plan_memory() {
  for (auto& [key, plan] : plans_) plan->release_memory();
}

}  // namespace xtrain
