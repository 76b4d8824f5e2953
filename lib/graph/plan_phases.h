// The phases of compiling a Plan, in the order its constructor runs them. Each takes what the
// phases before it produced and nothing else, so each can be read and tested on its own:
//   list_calls      the layer calls in order (the graph's nodes, then the loss if there is one),
//                   the values each reads, and which values a concatenation holds in place
//   infer_shapes    every value's shape
//   element_types   which values a bfloat16 plan stores in bfloat16
//   choose_rebuilt_values  which values a training plan rebuilds for the backward
//   plan_lifetimes  when each activation, rebuilt activation, gradient and saved buffer is live
//   place_buffers   where each buffer sits in the arena
// Binding every call's views to the allocated arena is the Plan's last phase (plan.cpp). Kernels
// are not chosen here: each kernel picks its code path from its shapes and the CPU at run time.
//
// Values: 0 is the image, value i + 1 the output of call i. Ticks order the calls of one step:
// the forward of call i is tick i; in a training plan its backward is tick 2 * calls - 1 - i.
// Not here: allocating the arena or running anything (plan.h), placement itself (arena_planner.h).
#pragma once

#include <vector>

#include "lib/graph/arena_planner.h"
#include "lib/graph/graph.h"

namespace xtrain {

enum class PlanMode {
  kTrain,  // batch statistics, gradients
  kEval,   // running statistics, forward only
};

struct CallList {
  std::vector<const Layer*> layers;      // the graph's nodes in order, then the loss if any
  std::vector<std::vector<int>> inputs;  // per call, the values it reads
  int logits;                            // the graph's output value
  bool has_loss;                         // the last call is a loss reading the logits
  // Per value: the concatenation output that holds it in place (-1: none). Its producer writes it
  // straight into its columns of that output, and the backward reads its gradient from there, so
  // the concatenation copies nothing. A value is held when its producer can write columns
  // (Layer::writes_columns), a concatenation is its only reader, reads it once, and is read itself.
  std::vector<int> held_by;

  int num_calls() const { return static_cast<int>(layers.size()); }
  int num_values() const { return num_calls() + 1; }
};

CallList list_calls(const Graph& graph, const Layer* loss);

// Per value: its first column (channel) in the concatenation output that holds it; 0 if none.
std::vector<int64_t> held_columns(const CallList& calls, const std::vector<Shape>& shapes);

// Per value; checks the image's shape and that the logits are [N, K].
std::vector<Shape> infer_shapes(const Graph& graph, const CallList& calls, const Shape& image);

// Per value: bfloat16 in a bfloat16 plan when its producer writes bfloat16 and every reader reads
// it (Layer::writes_bfloat16, reads_bfloat16: Conv2d, BatchNorm2d and MaxPool2d), float32
// otherwise (always the logits). The image, which has no producer, is bfloat16 when every
// reader reads it so (Plan::set_images rounds it). A value's gradient has its type: the
// layers that read and write bfloat16 values read and write their gradients so too. (Concat reads
// and writes float32, so a held value and its holder are float32.)
std::vector<ElementType> element_types(const CallList& calls, Precision precision);

// The image's type in every plan of `graph` in `precision` (its readers are the same in all):
// what a batch is best written in before any plan exists.
ElementType image_type(const Graph& graph, Precision precision);

// An inclusive range of ticks; empty when last < first.
struct Lifetime {
  int first = 0, last = -1;
  bool empty() const { return last < first; }
};

struct Lifetimes {
  int num_ticks;
  // Per value, as the forward writes it: from its producer's tick to its last reader's. A held
  // value (CallList::held_by) lives in its holder's buffer: its own lifetime is empty, and its
  // holder's covers both; the same for their gradients.
  std::vector<Lifetime> values;
  // Per value: a training plan does not keep it for the backward but rebuilds it (see plan.h),
  // into its rebuilt copy, live from the first backward that reads it to the last (empty when no
  // backward reads it).
  std::vector<bool> rebuilt;
  std::vector<Lifetime> rebuilt_copies;
  // [call][slot]: the gradient that call's backward writes for its input `slot`; empty for the
  // image and in eval plans. The value's first reader (the last backward to run) holds the total,
  // live until the backward of the value's producer; the other readers' live until then and are
  // added into it.
  std::vector<std::vector<Lifetime>> input_gradients;
  std::vector<int> first_reader;  // per value, -1: no gradient
  std::vector<Lifetime> saved;    // per call: from its forward to its backward
};

// Which values a training plan that multiplies in `multiplies` may rebuild for the backward
// instead of keeping them (see plan.h and Layer::rebuild_cost); none in evaluation, and never a
// concatenation holding values in place. A held value may be: it is rebuilt into a dense copy,
// while its gradient stays in its holder's.
std::vector<bool> rebuildable_values(const CallList& calls, PlanMode mode, Precision multiplies);

// The lifetimes when the values flagged in `rebuilt` (per value) are rebuilt.
Lifetimes plan_lifetimes(const CallList& calls, PlanMode mode, std::vector<bool> rebuilt);

// The rebuildable values, less those a plan keeps because rebuilding them costs memory: when the
// values a deep chain of residual blocks rebuilds for the first backward that reads the last of
// them all live together (each block's output is rebuilt from the one before), keeping one
// lowers the step's peak. Rounds of trial: each keeps the value whose keeping lowers the peak of
// live buffers (ArenaPlanner::live_peak) most, until none does.
std::vector<bool> choose_rebuilt_values(const CallList& calls, const std::vector<Shape>& shapes,
                                        const std::vector<ElementType>& types, PlanMode mode,
                                        Precision multiplies);

// Buffer ids in `planner`, placed; -1 where a lifetime is empty.
struct ArenaLayout {
  ArenaPlanner planner;
  size_t floats;                                  // the arena's size
  std::vector<int> values, rebuilt_copies;        // per value
  std::vector<std::vector<int>> input_gradients;  // [call][slot]
  std::vector<int> gradients;  // per value, its first reader's input gradient (the total)
  // [call][slot]: the backward adds that gradient into its buffer, which holds another reader's
  // (Layer::backward_adds).
  std::vector<std::vector<bool>> adds_to_gradients;
  std::vector<int> saved;  // per call
  int workspace;           // every call's scratch, the largest
  int thread_scratch;      // Exec::scratch: kernels::thread_scratch_floats() per kernel thread
};

// `kernel_threads`: the most threads the plan's calls will run on. Values, their rebuilt copies
// and their gradients take their element type's bytes. A gradient that its call's backward writes
// over the output's gradient (Layer::backward_in_place: BatchNorm's) shares that one's buffer, one
// gradient fewer live at that backward. So does a value's total gradient where its first
// reader adds into another reader's (Layer::backward_adds: a residual block's pointwise conv1
// adds into the shortcut's gradient), which leaves the plan no sum to run.
ArenaLayout place_buffers(const CallList& calls, const std::vector<Shape>& shapes,
                          const std::vector<ElementType>& types, const Lifetimes& lifetimes,
                          int kernel_threads);

}  // namespace xtrain
