#include "lib/graph/replica.h"

#include <chrono>

namespace xtrain {

Replica::Replica(std::shared_ptr<const Graph> graph, float label_smoothing)
    : graph_(std::move(graph)),
      label_smoothing_(label_smoothing),
      store_(*graph_),
      momentum_(store_.num_params()) {}

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
