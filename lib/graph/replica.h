// Replica: one copy of a model, as an emulated core owns it: the shared graph, this copy's
// parameters, gradients and buffers, and its compiled plans, one per input shape, mode and loss,
// compiled on first use and then reused (a step allocates nothing).
// The loss is the caller's (the trainer's CrossEntropyLoss): a replica is the model alone.
// Not here: the optimizer and its state (lib/optim), which the trainer's core owns beside it.
#pragma once

#include <map>
#include <memory>
#include <tuple>

#include "lib/graph/param_store.h"
#include "lib/graph/plan.h"

namespace xtrain {

class Replica {
 public:
  // Its plans run on at most `kernel_threads` threads (the core's pool) and multiply in
  // `precision`.
  explicit Replica(std::shared_ptr<const Graph> graph, int kernel_threads = 1,
                   Precision precision = Precision::kFloat32);
  // The state_bytes() of a replica of this graph, from the sizes its constructor allocates,
  // without allocating anything.
  static size_t state_bytes_for(const Graph& graph);
  // Its bytes besides its plans, as allocated: parameters, gradients, buffers and counters.
  size_t state_bytes() const;

  const Graph& graph() const { return *graph_; }
  ParamStore& store() { return store_; }
  // Copies parameters, buffers and counters from a replica of the same graph.
  void copy_state_from(Replica& other);

  // `loss` ends the plan (Plan's constructor); it must outlive the replica.
  Plan& plan_for(const Shape& input, PlanMode mode, const Layer* loss = nullptr);
  // Plan::release_memory() on every plan: training and testing take turns, so a phase that begins
  // calls this, and the other phase's arenas cost no memory while this one runs.
  void release_plan_memory();
  int compiled_plans() const { return static_cast<int>(plans_.size()); }
  double compile_seconds() const { return compile_seconds_; }  // total over all plans

 private:
  std::shared_ptr<const Graph> graph_;
  int kernel_threads_;
  Precision precision_;
  ParamStore store_;
  std::map<std::tuple<std::vector<int64_t>, PlanMode, const Layer*>, std::unique_ptr<Plan>> plans_;
  double compile_seconds_ = 0.0;
};

}  // namespace xtrain
