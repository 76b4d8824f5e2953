// Replica: one copy of a model, as an emulated core owns it: the shared graph, this copy's
// parameters, gradients, buffers and optimizer state, and its compiled plans, one per input
// shape and mode, compiled on first use and then reused (a step allocates nothing).
#pragma once

#include <map>
#include <memory>
#include <utility>

#include "lib/graph/param_store.h"
#include "lib/graph/plan.h"

namespace xtrain {

class Replica {
 public:
  Replica(std::shared_ptr<const Graph> graph, float label_smoothing);
  // Bytes a replica of this graph holds besides its plans (parameters, gradients, momentum,
  // buffers and counters), counted without allocating them.
  static size_t state_bytes(const Graph& graph);

  const Graph& graph() const { return *graph_; }
  ParamStore& store() { return store_; }
  float* momentum() { return momentum_.data(); }  // SGD's buffer, parallel to store().params()
  // Copies parameters, buffers, counters and momentum from a replica of the same graph.
  void copy_state_from(Replica& other);

  Plan& plan_for(const Shape& input, PlanMode mode);
  int compiled_plans() const { return static_cast<int>(plans_.size()); }
  double compile_seconds() const { return compile_seconds_; }  // total over all plans

 private:
  std::shared_ptr<const Graph> graph_;
  float label_smoothing_;
  ParamStore store_;
  AlignedBuffer momentum_;
  std::map<std::pair<std::vector<int64_t>, PlanMode>, std::unique_ptr<Plan>> plans_;
  double compile_seconds_ = 0.0;
};

}  // namespace xtrain
