// Plan: a graph compiled for one input shape, like an XLA executable. Compiling infers every
// shape, lays out every activation, gradient, saved and scratch buffer in one arena and builds
// each layer's Step once; forward and backward then only run kernels, and allocate nothing.
// Buffers share arena bytes when their lifetimes do not meet: an activation lives until the last
// forward or backward that reads it, a gradient until its producer's backward has consumed it,
// and an eval plan keeps no activation past its last reader.
// A value read by several layers (a residual block's input) gets one gradient buffer per reader;
// they are summed, in reader order, before the producer's backward.
// Not here: where parameters live (param_store.h), which plan to use (replica.h).
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "lib/graph/arena_planner.h"
#include "lib/graph/graph.h"
#include "lib/graph/param_store.h"

namespace xtrain {

// One layer call timed by a profiling plan; times in seconds since the plan was compiled.
struct LayerTiming {
  int node;  // index into layers(): the graph's nodes, then the loss
  bool backward;
  double start, seconds;
};

enum class PlanMode {
  kTrain,  // batch statistics, gradients
  kEval,   // running statistics, forward only
};

class Plan {
 public:
  Plan(const Graph& graph, ParamStore& store, const Shape& input, PlanMode mode,
       float label_smoothing);
  // The arena_bytes() such a plan would have, computed without allocating anything: memory is
  // planned before it is taken.
  static size_t arena_bytes_for(const Graph& graph, const Shape& input, PlanMode mode);

  const Shape& input_shape() const { return input_shape_; }
  PlanMode mode() const { return mode_; }
  TensorView input() { return value_view(Graph::kImage); }   // [N, H, W, C], filled by the caller
  int32_t* labels() { return labels_.data(); }               // [N]
  TensorView logits() { return value_view(logits_value_); }  // [N, K] after forward

  // Runs every layer and returns the mean loss over the batch.
  float forward(const Exec& ex);
  // Accumulates into the store's gradients (training plans only).
  void backward(const Exec& ex);

  // Profiling records one LayerTiming per layer call from now on (this allocates: leave it off
  // for throughput runs).
  void enable_profiling() { profiling_ = true; }
  const std::vector<LayerTiming>& timings() const { return timings_; }
  const std::vector<const Layer*>& layers() const { return layers_; }

  size_t arena_bytes() const { return arena_.size() * sizeof(float); }
  // Every buffer of the arena with its lifetime, in plan steps: forward of node i is step i,
  // its backward step 2 * nodes - 1 - i.
  const std::vector<ArenaBuffer>& arena_buffers() const { return arena_buffers_; }

 private:
  struct Layout;
  // Compiling in two halves: this constructor and lay_out() infer shapes_, list layers_ and
  // place every buffer without allocating; the public constructor then allocates and binds.
  Plan(const Graph& graph, const Shape& input, PlanMode mode, float label_smoothing);
  Layout lay_out(const Graph& graph);

  // Runs layer i's forward or backward, timed when profiling.
  void run_layer(int i, bool backward);

  TensorView value_view(int value) {
    return {arena_.data() + value_offset_[value], shapes_[value]};
  }

  Shape input_shape_;
  PlanMode mode_;
  std::unique_ptr<Layer> loss_;
  std::vector<const Layer*> layers_;  // the graph's nodes, then the loss
  int logits_value_;
  std::vector<Shape> shapes_;         // per value, the loss output last
  std::vector<size_t> value_offset_;  // per value, into arena_
  std::vector<Step> steps_;           // parallel to layers_
  // Per value: extra gradient buffers (readers after the first) to add into the main one.
  std::vector<std::vector<float*>> extra_grads_;
  std::vector<ArenaBuffer> arena_buffers_;
  AlignedBuffer arena_;
  std::vector<int32_t> labels_;
  bool profiling_ = false;
  std::chrono::steady_clock::time_point compiled_at_ = std::chrono::steady_clock::now();
  std::vector<LayerTiming> timings_;
};

}  // namespace xtrain
