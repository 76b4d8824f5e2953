#include "lib/graph/plan_phases.h"

#include <algorithm>
#include <optional>

#include "lib/base/check.h"
#include "lib/kernels/thread_scratch.h"

namespace xtrain {

namespace {

// CallList::held_by, from the rest of the list.
std::vector<int> held_values(const CallList& calls) {
  std::vector<int> reads(calls.num_values(), 0), held_by(calls.num_values(), -1);
  for (const std::vector<int>& inputs : calls.inputs) {
    for (int v : inputs) ++reads[v];
  }
  for (int i = 0; i < calls.num_calls(); ++i) {
    const int whole = i + 1;
    if (!calls.layers[i]->is_concatenation() || reads[whole] == 0) continue;
    for (int v : calls.inputs[i]) {
      if (v != Graph::kImage && reads[v] == 1 && calls.layers[v - 1]->writes_columns()) {
        held_by[v] = whole;
      }
    }
  }
  return held_by;
}

}  // namespace

CallList list_calls(const Graph& graph, const Layer* loss) {
  CallList calls{{}, {}, graph.output(), loss != nullptr, {}};
  for (const Node& node : graph.nodes()) {
    calls.layers.push_back(node.layer.get());
    calls.inputs.push_back(node.inputs);
  }
  if (loss != nullptr) {
    calls.layers.push_back(loss);
    calls.inputs.push_back({calls.logits});
  }
  calls.held_by = held_values(calls);
  return calls;
}

std::vector<int64_t> held_columns(const CallList& calls, const std::vector<Shape>& shapes) {
  std::vector<int64_t> columns(calls.num_values(), 0);
  for (int i = 0; i < calls.num_calls(); ++i) {
    if (!calls.layers[i]->is_concatenation()) continue;
    int64_t column = 0;
    for (int v : calls.inputs[i]) {
      if (calls.held_by[v] == i + 1) columns[v] = column;
      column += shapes[v][3];
    }
  }
  return columns;
}

std::vector<Shape> infer_shapes(const Graph& graph, const CallList& calls, const Shape& image) {
  std::vector<Shape> shapes = graph.infer_shapes(image);
  const Shape& logits = shapes[calls.logits];
  XTRAIN_CHECK(logits.rank() == 2, "the model's output must be logits [N, K], got {}",
               logits.str());
  if (calls.has_loss) shapes.push_back(calls.layers.back()->output_shape({logits}));
  return shapes;
}

std::vector<ElementType> element_types(const CallList& calls, Precision precision) {
  std::vector<ElementType> types(calls.num_values(), ElementType::kFloat32);
  if (precision != Precision::kBFloat16) return types;
  std::vector<bool> readable(calls.num_values(), true), read(calls.num_values(), false);
  for (int i = 0; i < calls.num_calls(); ++i) {
    for (size_t slot = 0; slot < calls.inputs[i].size(); ++slot) {
      const int v = calls.inputs[i][slot];
      read[v] = true;
      if (!calls.layers[i]->reads_bfloat16(static_cast<int>(slot))) readable[v] = false;
    }
  }
  for (int v = 1; v < calls.logits; ++v) {
    if (calls.layers[v - 1]->writes_bfloat16() && read[v] && readable[v]) {
      types[v] = ElementType::kBFloat16;
    }
  }
  // The image has no producer: Plan::set_images rounds it as it writes it.
  if (read[Graph::kImage] && readable[Graph::kImage]) types[Graph::kImage] = ElementType::kBFloat16;
  return types;
}

ElementType image_type(const Graph& graph, Precision precision) {
  return element_types(list_calls(graph, nullptr), precision)[Graph::kImage];
}

// Always when rebuilding is one pass over memory, where keeping costs the bytes of a whole
// activation until the backward; when it is arithmetic, only from inputs at hand: kept, or rebuilt
// in one pass from kept values (a bottleneck's conv3 reading bn2's output), so that rebuilding
// does not bring back a chain of earlier activations. The image, with no producer, lives all step
// (the stem). ResNet-50's layer1.0 conv1 and downsample read the kept max-pool output, so their
// outputs are rebuilt for little arithmetic, and the memory they free counts at the step's peak
// in layer4's backward.
std::vector<bool> rebuildable_values(const CallList& calls, PlanMode mode, Precision multiplies) {
  std::vector<bool> rebuilt(calls.num_values(), false);
  if (mode != PlanMode::kTrain) return rebuilt;
  // Kept, or rebuilt in one pass from kept values.
  std::vector<bool> at_hand(calls.num_values(), true), holds(calls.num_values());
  for (int holder : calls.held_by) {
    if (holder >= 0) holds[holder] = true;
  }
  for (int v = 1; v < calls.logits; ++v) {
    if (holds[v]) continue;  // its producer could not rebuild the values it holds in place
    const Layer& producer = *calls.layers[v - 1];
    const std::vector<int>& from = calls.inputs[v - 1];
    switch (producer.rebuild_cost(multiplies)) {
      case Layer::Rebuild::kNo:
        break;
      case Layer::Rebuild::kOnePass:
        rebuilt[v] = true;
        at_hand[v] = std::none_of(from.begin(), from.end(), [&](int u) { return rebuilt[u]; });
        break;
      case Layer::Rebuild::kArithmetic:
        rebuilt[v] = std::all_of(from.begin(), from.end(), [&](int u) { return at_hand[u]; });
        at_hand[v] = !rebuilt[v];
        break;
    }
  }
  return rebuilt;
}

namespace {

// Forward of call i is tick i; in a training plan its backward is tick 2 * calls - 1 - i.
int backward_tick(const CallList& calls, int call) { return 2 * calls.num_calls() - 1 - call; }

// `into` covers `from` too, and `from` is empty: a held value's buffer is its holder's.
void absorb(Lifetime& into, Lifetime& from) {
  if (from.empty()) return;
  into = into.empty() ? from
                      : Lifetime{std::min(into.first, from.first), std::max(into.last, from.last)};
  from = Lifetime{};
}

// t.values and t.rebuilt_copies, given t.rebuilt. A value lives from its producer's forward to
// its last reader; a rebuilt one only to its last forward reader, its rebuilt copy over the
// backwards that read it.
void plan_activations(const CallList& calls, bool training, Lifetimes& t) {
  const int num_calls = calls.num_calls(), num_values = calls.num_values();
  const int last_tick = t.num_ticks - 1;
  t.values.resize(num_values);
  t.rebuilt_copies.assign(num_values, Lifetime{last_tick + 1, -1});
  for (int v = 0; v < num_values; ++v) t.values[v] = {std::max(v - 1, 0), std::max(v - 1, 0)};
  auto read_at = [&](int v, int tick) {
    Lifetime& live = t.rebuilt[v] && tick >= num_calls ? t.rebuilt_copies[v] : t.values[v];
    live.first = std::min(live.first, tick);
    live.last = std::max(live.last, tick);
  };
  for (int i = 0; i < num_calls; ++i) {
    for (int v : calls.inputs[i]) read_at(v, i);
  }
  for (int i = 0; training && i < num_calls; ++i) {
    const Layer& layer = *calls.layers[i];
    for (size_t slot = 0; slot < calls.inputs[i].size(); ++slot) {
      if (layer.backward_reads_input(static_cast<int>(slot))) {
        read_at(calls.inputs[i][slot], backward_tick(calls, i));
      }
    }
    if (layer.backward_reads_output()) read_at(i + 1, backward_tick(calls, i));
  }
  // Rebuilding a value reads its producer's inputs where its copy's life begins; later values
  // first, so that an input which is rebuilt itself knows every tick it is read at before its
  // own copy's life is settled.
  for (int v = calls.logits - 1; v > 0; --v) {
    if (t.rebuilt_copies[v].empty()) continue;
    for (int u : calls.inputs[v - 1]) read_at(u, t.rebuilt_copies[v].first);
  }
  // The caller fills the image (and labels) before forward and reads the logits and the loss
  // after it, and forward may run again on the same image (finite differences).
  t.values[Graph::kImage].last = last_tick;
  t.values[calls.logits].last = last_tick;
  if (calls.has_loss) t.values[num_values - 1].last = last_tick;
  for (int v = 0; v < num_values; ++v) {
    if (calls.held_by[v] >= 0) absorb(t.values[calls.held_by[v]], t.values[v]);
  }
}

// The input slot of v's first reader whose gradient the others are summed into (v's total).
int total_slot(const CallList& calls, const Lifetimes& t, int v) {
  const std::vector<int>& read = calls.inputs[t.first_reader[v]];
  return static_cast<int>(std::find(read.begin(), read.end(), v) - read.begin());
}

Lifetime& gradient_total(const CallList& calls, Lifetimes& t, int v) {
  return t.input_gradients[t.first_reader[v]][total_slot(calls, t, v)];
}

// t.input_gradients and t.first_reader (see Lifetimes).
void plan_gradients(const CallList& calls, bool training, Lifetimes& t) {
  t.input_gradients.resize(calls.num_calls());
  t.first_reader.assign(calls.num_values(), -1);
  for (int i = 0; i < calls.num_calls(); ++i) {
    for (int v : calls.inputs[i]) {
      Lifetime live;  // empty: the image's gradient, or any in eval
      if (training && v != Graph::kImage) {
        const bool first = t.first_reader[v] < 0;
        if (first) t.first_reader[v] = i;
        live = {backward_tick(calls, i), backward_tick(calls, first ? v - 1 : t.first_reader[v])};
      }
      t.input_gradients[i].push_back(live);
    }
  }
  for (int v = 0; training && v < calls.num_values(); ++v) {
    if (calls.held_by[v] >= 0) {
      absorb(gradient_total(calls, t, calls.held_by[v]), gradient_total(calls, t, v));
    }
  }
}

}  // namespace

Lifetimes plan_lifetimes(const CallList& calls, PlanMode mode, std::vector<bool> rebuilt) {
  const bool training = mode == PlanMode::kTrain;
  XTRAIN_CHECK(!training || calls.has_loss, "a training plan needs a loss to start its backward");
  XTRAIN_CHECK(rebuilt.size() == static_cast<size_t>(calls.num_values()),
               "plan_lifetimes: {} rebuilt flags for {} values", rebuilt.size(),
               calls.num_values());
  Lifetimes t;
  t.num_ticks = training ? 2 * calls.num_calls() : calls.num_calls();
  t.rebuilt = std::move(rebuilt);
  plan_activations(calls, training, t);
  plan_gradients(calls, training, t);
  for (int i = 0; i < calls.num_calls(); ++i) {
    t.saved.push_back({i, training ? backward_tick(calls, i) : i});
  }
  return t;
}

namespace {

// What a call reads, as Layer's questions about it take it: its inputs' shapes and their
// gradients' element types (a gradient has its value's; none for a value without one).
struct CallInputs {
  std::vector<Shape> shapes;
  std::vector<std::optional<ElementType>> gradient_types;
};

CallInputs inputs_of(const CallList& calls, const std::vector<Shape>& shapes,
                     const std::vector<ElementType>& types, const Lifetimes& lifetimes, int call) {
  CallInputs in;
  for (int v : calls.inputs[call]) {
    in.shapes.push_back(shapes[v]);
    in.gradient_types.push_back(lifetimes.first_reader[v] >= 0 ? std::optional(types[v])
                                                               : std::nullopt);
  }
  return in;
}

// Where the gradient of one call's input slot has no buffer of its own: the gradient whose buffer
// it shares (call -1: none), and whether its backward adds into what that holds.
struct SharedGradient {
  int call = -1, slot = -1;
  bool adds = false;
};

// [call][slot]: the gradients that share another's buffer, always a later call's (so chains end):
// - a value's total, when its first reader can add into another reader's gradient
//   (Layer::backward_adds): then into that of the last reader, whose backward runs first;
// - a gradient written in place over its call's output gradient (Layer::backward_in_place), of
//   one element type and size: over the output's total.
// Never the gradient of a value a concatenation holds, which is columns of the holder's.
std::vector<std::vector<SharedGradient>> shared_gradients(const CallList& calls,
                                                          const std::vector<Shape>& shapes,
                                                          const std::vector<ElementType>& types,
                                                          const Lifetimes& lifetimes) {
  const int num_calls = calls.num_calls();
  std::vector<std::vector<SharedGradient>> shared(num_calls);
  for (int i = 0; i < num_calls; ++i) shared[i].resize(calls.inputs[i].size());
  for (int v = 1; v < calls.num_values(); ++v) {
    const int first = lifetimes.first_reader[v];
    if (first < 0 || calls.held_by[v] >= 0) continue;
    const int slot = total_slot(calls, lifetimes, v);
    const CallInputs read = inputs_of(calls, shapes, types, lifetimes, first);
    if (!calls.layers[first]->backward_adds(slot, read.shapes, read.gradient_types)) continue;
    for (int i = num_calls - 1; i > first && shared[first][slot].call < 0; --i) {
      const std::vector<int>& inputs = calls.inputs[i];
      const auto other = std::find(inputs.begin(), inputs.end(), v);
      if (other != inputs.end()) {
        shared[first][slot] = {i, static_cast<int>(other - inputs.begin()), /*adds=*/true};
      }
    }
  }
  for (int i = 0; i < num_calls; ++i) {
    const int out = i + 1;
    if (lifetimes.first_reader[out] < 0 || calls.held_by[out] >= 0) continue;
    for (size_t slot = 0; slot < calls.inputs[i].size(); ++slot) {
      const int v = calls.inputs[i][slot];
      if (calls.layers[i]->backward_in_place(static_cast<int>(slot)) && shared[i][slot].call < 0 &&
          !lifetimes.input_gradients[i][slot].empty() && calls.held_by[v] < 0 &&
          types[v] == types[out] && shapes[v].numel() == shapes[out].numel()) {
        shared[i][slot] = {lifetimes.first_reader[out], total_slot(calls, lifetimes, out)};
        break;
      }
    }
  }
  return shared;
}

// Every buffer of place_buffers added to the layout's planner, not yet placed.
ArenaLayout request_buffers(const CallList& calls, const std::vector<Shape>& shapes,
                            const std::vector<ElementType>& types, const Lifetimes& lifetimes,
                            int kernel_threads) {
  ArenaLayout layout;
  ArenaPlanner& planner = layout.planner;
  auto add = [&](size_t floats, const Lifetime& live) {
    return live.empty() ? -1 : planner.add(floats, live.first, live.last);
  };
  for (int v = 0; v < calls.num_values(); ++v) {
    const size_t floats = floats_for(shapes[v].numel(), types[v]);
    layout.values.push_back(add(floats, lifetimes.values[v]));
    layout.rebuilt_copies.push_back(add(floats, lifetimes.rebuilt_copies[v]));
  }
  // Each gradient's own buffer, in call order; then, later calls first, a shared one takes its
  // root's, whose life grows to cover it.
  const std::vector<std::vector<SharedGradient>> shared =
      shared_gradients(calls, shapes, types, lifetimes);
  layout.input_gradients.resize(calls.num_calls());
  layout.adds_to_gradients.resize(calls.num_calls());
  for (int i = 0; i < calls.num_calls(); ++i) {
    for (size_t slot = 0; slot < calls.inputs[i].size(); ++slot) {
      const int v = calls.inputs[i][slot];
      layout.input_gradients[i].push_back(
          shared[i][slot].call >= 0
              ? -1
              : add(floats_for(shapes[v].numel(), types[v]), lifetimes.input_gradients[i][slot]));
      layout.adds_to_gradients[i].push_back(shared[i][slot].adds);
    }
  }
  for (int i = calls.num_calls() - 1; i >= 0; --i) {
    for (size_t slot = 0; slot < calls.inputs[i].size(); ++slot) {
      const SharedGradient& with = shared[i][slot];
      if (with.call < 0) continue;
      const int id = layout.input_gradients[with.call][with.slot];
      const Lifetime& live = lifetimes.input_gradients[i][slot];
      planner.extend(id, live.first, live.last);
      layout.input_gradients[i][slot] = id;
    }
  }
  layout.gradients.assign(calls.num_values(), -1);
  for (int v = 0; v < calls.num_values(); ++v) {
    if (lifetimes.first_reader[v] >= 0) {
      layout.gradients[v] =
          layout.input_gradients[lifetimes.first_reader[v]][total_slot(calls, lifetimes, v)];
    }
  }
  size_t workspace_floats = 0;
  for (int i = 0; i < calls.num_calls(); ++i) {
    const CallInputs in = inputs_of(calls, shapes, types, lifetimes, i);
    layout.saved.push_back(add(calls.layers[i]->saved_floats(in.shapes), lifetimes.saved[i]));
    workspace_floats =
        std::max(workspace_floats, calls.layers[i]->workspace_floats(in.shapes, in.gradient_types));
  }
  layout.workspace = add(workspace_floats, {0, lifetimes.num_ticks - 1});
  layout.thread_scratch =
      add(size_t(kernel_threads) * kernels::thread_scratch_floats(), {0, lifetimes.num_ticks - 1});
  return layout;
}

}  // namespace

ArenaLayout place_buffers(const CallList& calls, const std::vector<Shape>& shapes,
                          const std::vector<ElementType>& types, const Lifetimes& lifetimes,
                          int kernel_threads) {
  ArenaLayout layout = request_buffers(calls, shapes, types, lifetimes, kernel_threads);
  layout.floats = layout.planner.place();
  return layout;
}

std::vector<bool> choose_rebuilt_values(const CallList& calls, const std::vector<Shape>& shapes,
                                        const std::vector<ElementType>& types, PlanMode mode,
                                        Precision multiplies) {
  std::vector<bool> rebuilt = rebuildable_values(calls, mode, multiplies);
  // The peak of these choices and the values whose rebuilt copies are live at its tick. (The
  // workspace and the threads' scratch live throughout: they move every tick alike.)
  struct Trial {
    size_t peak;
    std::vector<int> copies_at_peak;
  };
  auto trial = [&]() {
    const Lifetimes t = plan_lifetimes(calls, mode, rebuilt);
    const ArenaPlanner::Peak peak =
        request_buffers(calls, shapes, types, t, /*kernel_threads=*/1).planner.live_peak();
    Trial result{peak.floats, {}};
    for (int v = 0; v < calls.num_values(); ++v) {
      const Lifetime& copy = t.rebuilt_copies[v];
      if (copy.first <= peak.tick && peak.tick <= copy.last) result.copies_at_peak.push_back(v);
    }
    return result;
  };
  // A value a concatenation holds in place is kept with the others it holds: keeping one keeps
  // the holder's buffer alive until its backward, and then the others cost nothing to keep.
  auto kept_with = [&](int v) {
    std::vector<int> group{v};
    for (int u = 1; calls.held_by[v] >= 0 && u < calls.num_values(); ++u) {
      if (u != v && calls.held_by[u] == calls.held_by[v] && rebuilt[u]) group.push_back(u);
    }
    return group;
  };
  auto set_rebuilt = [&](const std::vector<int>& group, bool value) {
    for (int u : group) rebuilt[u] = value;
  };
  // Keeping a value can lower the peak where its rebuilt copy, or the chain of copies its rebuild
  // needs, is live; and keeping a group of held values frees what their rebuilds read (SqueezeNet:
  // the expand convolutions' outputs under its Fire modules' ReLUs). Each round keeps the one
  // value or group that lowers the peak most.
  auto candidates = [&](const Trial& t) {
    std::vector<int> values = t.copies_at_peak;
    std::vector<bool> group_seen(calls.num_values(), false);
    for (int v = 1; v < calls.num_values(); ++v) {
      const int holder = calls.held_by[v];
      if (holder < 0 || !rebuilt[v] || group_seen[holder]) continue;
      group_seen[holder] = true;
      values.push_back(v);
    }
    return values;
  };
  Trial best = trial();
  while (true) {
    std::vector<int> keep;
    size_t lowest = best.peak;
    for (int v : candidates(best)) {
      const std::vector<int> group = kept_with(v);
      set_rebuilt(group, false);
      const size_t peak = trial().peak;
      set_rebuilt(group, true);
      if (peak < lowest) {
        lowest = peak;
        keep = group;
      }
    }
    if (keep.empty()) return rebuilt;
    set_rebuilt(keep, false);
    best = trial();
  }
}

}  // namespace xtrain
