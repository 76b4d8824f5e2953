#include "lib/graph/replica.h"

#include <algorithm>
#include <chrono>

#include "lib/base/check.h"

namespace xtrain {

Replica::Replica(std::shared_ptr<const Graph> graph, float label_smoothing)
    : graph_(std::move(graph)),
      label_smoothing_(label_smoothing),
      store_(*graph_),
      momentum_(store_.num_params()) {}

void Replica::copy_state_from(Replica& other) {
  XTRAIN_CHECK(other.graph_ == graph_, "copy_state_from needs a replica of the same graph");
  ParamStore& from = other.store();
  std::copy_n(from.params(), from.num_params(), store_.params());
  std::copy_n(from.buffers(), from.num_buffers(), store_.buffers());
  std::copy_n(from.counters(), from.num_counters(), store_.counters());
  std::copy_n(other.momentum(), from.num_params(), momentum());
}

Plan& Replica::plan_for(const Shape& input, PlanMode mode) {
  std::unique_ptr<Plan>& plan = plans_[{input.dims(), mode}];
  if (!plan) {
    const auto start = std::chrono::steady_clock::now();
    plan = std::make_unique<Plan>(*graph_, store_, input, mode, label_smoothing_);
    compile_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return *plan;
}

}  // namespace xtrain
