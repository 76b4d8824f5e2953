// Plan: a graph compiled for one input shape, like an XLA executable. Compiling (plan_phases.h)
// lists the layer calls, infers every shape and works out every buffer's lifetime. It then places
// all activation, gradient, saved and scratch buffers (the calls' workspace, the kernel threads'
// scratch) in one arena, which is the whole memory of a step. The constructor allocates the arena
// and builds each call's LayerCall once; forward and backward only run kernels and allocate
// nothing.
// Buffers share arena bytes when their lifetimes do not meet: an activation lives until the last
// forward or backward that reads it, a gradient until its producer's backward has consumed it,
// and an eval plan keeps no activation past its last reader. A training plan keeps no output that
// its layer can recompute in one pass (BatchNorm, ReLU, Add). Nor does it keep that of a cheap
// convolution whose input is kept or one such pass away from kept values (Layer::rebuild_cost).
// The backward rebuilds such an output just before the first backward that reads it, so what
// stays live from forward to backward is mostly the other convolutions' outputs. Where rebuilding
// chains (each residual block's output from the one before) and so raises the peak, the plan
// keeps a few such values instead (choose_rebuilt_values in plan_phases.h).
// A value read by several layers (a residual block's input) gets one gradient buffer per reader.
// They are summed, in reader order, as soon as the first reader's backward (the last to run) has
// written its own. Where that reader can add its gradient into another's as it writes it (a
// pointwise convolution's dx), no sum runs at all. A layer that can write its input's gradient
// over its output's (BatchNorm) gets one buffer for both. A concatenation's output holds the
// inputs that only it reads in place, as its columns (CallList::held_by): their producers write
// there, and nothing is copied either way.
// The loss is an optional last call: training plans end with one, which reads the labels and
// starts the backward; evaluation and prediction plans end at the logits.
// Not here: where parameters live (param_store.h), which plan to use (replica.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "lib/graph/param_store.h"
#include "lib/graph/plan_phases.h"

namespace xtrain {

// One layer call timed by a profiling plan; times in seconds since the plan was compiled.
struct LayerTiming {
  enum class Pass {
    kForward,
    kBackward,
    kRebuild,  // the forward again, in the backward, for an output the plan did not keep
  };
  int node;  // index into layers(): the graph's nodes, then the loss if any
  Pass pass;
  double start, seconds;
};

// Which step of a run a training forward is: keys its random layers (Dropout), so that every
// core, process and resumed run draws the masks this step drew (kernels/dropout.h says how).
struct StepSeed {
  uint64_t seed = 0;        // the run's --seed
  int64_t global_step = 0;  // the steps trained before this one
  int ordinal = 0;          // the core's place in the job
};

class Plan {
 public:
  // `loss` (kept by the caller, outliving the plan) ends the plan; a training plan needs one.
  // The plan runs on at most `kernel_threads` threads (its arena holds their kernel scratch); its
  // convolutions and Linear layers multiply in `precision`.
  Plan(const Graph& graph, ParamStore& store, const Shape& input, PlanMode mode, const Layer* loss,
       int kernel_threads, Precision precision);
  // The arena_bytes() such a plan would have, computed without allocating anything: memory is
  // planned before it is taken.
  static size_t arena_bytes_for(const Graph& graph, const Shape& input, PlanMode mode,
                                const Layer* loss, int kernel_threads, Precision precision);

  // [N, H, W, C], filled by the caller through set_images; bfloat16 in a bfloat16 plan whose first
  // layers read it so (their products round it anyway).
  TensorView input() { return value_view(Graph::kImage); }
  // Writes `count` images of [H, W, C] floats into the input from image `first` on, rounded to
  // bfloat16 where the input is stored so; or images already in bfloat16, for a bfloat16 input
  // (image_type in plan_phases.h).
  void set_images(int64_t first, int64_t count, ConstElements images);
  bool has_loss() const { return calls_.has_loss; }
  int32_t* labels();  // [N], plans with a loss
  // The weight of each sample's own label in the next steps' loss, for a batch mixed with itself
  // rolled by one (mixup, CutMix: kernels/cross_entropy.h); 1, hard labels, until set.
  void set_label_mix(float mix);
  TensorView logits() { return value_view(calls_.logits); }  // [N, K] after forward
  float loss() const;  // the last forward's mean loss over the batch, plans with a loss

  // ex runs on at most kernel_threads threads. A training forward's random layers (Dropout) draw
  // the masks of `step`, or of a key the caller chose (the golden tests take their Python twin's);
  // evaluation plans draw none.
  // Per-sample draws (StochasticDepth) take the step's key without the core and the sample's
  // place in the whole step's batch (the core's ordinal times this plan's batch, all cores taking
  // equal batches), so any placement of a batch draws the same masks; under a chosen key, that
  // key and the plan's own sample indices.
  void forward(const Exec& ex, const StepSeed& step);
  void forward(const Exec& ex, uint32_t step_key = 0);
  // Accumulates into the store's gradients (training plans only), with the last forward's key.
  // after_call(i), if given, runs after call i's backward, the last call first: call i is graph
  // node i (the loss is the last), so the gradients from the store's first_param(i) on are final.
  void backward(const Exec& ex, const std::function<void(int call)>& after_call = {});

  // Profiling records one LayerTiming per layer call from now on (this allocates: leave it off
  // for throughput runs).
  void enable_profiling() { profiling_ = true; }
  const std::vector<LayerTiming>& timings() const { return timings_; }
  const std::vector<const Layer*>& layers() const { return calls_.layers; }

  size_t arena_bytes() const { return arena_.size() * sizeof(float); }
  // Gives the arena's pages back to the system until the next forward touches them again; the
  // activations it held (input and logits too) are lost. For a plan that will not run for a while.
  void release_memory() { arena_.release_pages(); }

 private:
  // The last phase of compiling: every call's views over the allocated arena and the store.
  void bind_calls(ParamStore& store, const Lifetimes& lifetimes, const ArenaLayout& layout);
  // Its second half: the backward's views (rebuilt values), rebuilds and gradient sums.
  void bind_backward(const Lifetimes& lifetimes, const ArenaLayout& layout);

  // ex with this plan's kernel scratch.
  Exec with_scratch(const Exec& ex);
  // Runs call i's forward or backward, timed when profiling; a backward first rebuilds the
  // outputs it is the first to read (each timed as its producer's rebuild).
  void run_call(int i, bool backward);
  // The forward with these keys (LayerCall::step_key, batch_key and first_sample).
  void forward_keyed(const Exec& ex, uint32_t step_key, uint32_t batch_key, int64_t first_sample);
  // Runs `call`, and records it as node i's `pass` when profiling.
  template <typename Call>
  void timed(int i, LayerTiming::Pass pass, Call&& call);

  TensorView value_view(int value) {
    return {arena_.data() + value_offset_[value], shapes_[value], types_[value],
            row_stride_[value]};
  }

  PlanMode mode_;
  int kernel_threads_;
  Precision precision_;
  CallList calls_;
  std::vector<Shape> shapes_;              // per value
  std::vector<ElementType> types_;         // per value
  std::vector<size_t> value_offset_;       // per value, into arena_
  std::vector<int64_t> row_stride_;        // per value: its holder's row (TensorView::row_stride)
  size_t thread_scratch_offset_ = 0;       // into arena_
  std::vector<LayerCall> forward_calls_;   // parallel to calls_.layers
  std::vector<LayerCall> backward_calls_;  // the same, reading rebuilt values
  // Per call: the calls whose outputs are rebuilt just before its backward, inputs first.
  std::vector<std::vector<int>> rebuild_before_;
  // A value's gradient: the first reader's buffer (total), and the other readers' to add into it.
  struct GradientSum {
    Elements total;
    int64_t n;
    std::vector<ConstElements> others;
  };
  // Per call: the sums due right after its backward (the values it is the first reader of).
  std::vector<std::vector<GradientSum>> gradient_sums_after_;
  AlignedBuffer arena_;
  std::vector<int32_t> labels_;
  float label_mix_ = 1.0f;
  bool profiling_ = false;
  std::chrono::steady_clock::time_point compiled_at_ = std::chrono::steady_clock::now();
  std::vector<LayerTiming> timings_;
};

}  // namespace xtrain
