#include "lib/graph/plan.h"

#include <algorithm>

#include "lib/base/check.h"
#include "lib/kernels/add.h"
#include "lib/kernels/dropout.h"

namespace xtrain {

size_t Plan::arena_bytes_for(const Graph& graph, const Shape& input, PlanMode mode,
                             const Layer* loss, int kernel_threads, Precision precision) {
  const CallList calls = list_calls(graph, loss);
  const std::vector<Shape> shapes = infer_shapes(graph, calls, input);
  const std::vector<ElementType> types = element_types(calls, precision);
  const Lifetimes lifetimes =
      plan_lifetimes(calls, mode, choose_rebuilt_values(calls, shapes, types, mode, precision));
  return place_buffers(calls, shapes, types, lifetimes, kernel_threads).floats * sizeof(float);
}

Plan::Plan(const Graph& graph, ParamStore& store, const Shape& input, PlanMode mode,
           const Layer* loss, int kernel_threads, Precision precision)
    : mode_(mode),
      kernel_threads_(kernel_threads),
      precision_(precision),
      calls_(list_calls(graph, loss)),
      shapes_(infer_shapes(graph, calls_, input)),
      types_(element_types(calls_, precision)) {
  XTRAIN_CHECK(kernel_threads >= 1, "a plan needs at least one kernel thread, got {}",
               kernel_threads);
  const Lifetimes lifetimes =
      plan_lifetimes(calls_, mode, choose_rebuilt_values(calls_, shapes_, types_, mode, precision));
  const ArenaLayout layout = place_buffers(calls_, shapes_, types_, lifetimes, kernel_threads);
  // Every buffer is written before it is read, so the arena is not cleared: untouched pages
  // cost no memory.
  arena_ = AlignedBuffer::uninitialized(layout.floats);
  if (calls_.has_loss) labels_.assign(input[0], 0);
  bind_calls(store, lifetimes, layout);
}

// Where buffer `id` of the layout is in the arena at `base`; null for no buffer (-1).
static float* address(float* base, const ArenaLayout& layout, int id) {
  return id < 0 ? nullptr : base + layout.planner.buffer(id).offset;
}

// A call's parameters, gradients, buffers and counters, in the order of its param_specs().
static void bind_parameters(ParamStore& store, int node, LayerCall& c) {
  for (int e = store.first_entry(node); e < store.first_entry(node + 1); ++e) {
    const ParamEntry& entry = store.entries()[e];
    switch (entry.spec.kind) {
      case ParamKind::kParameter:
        c.params.push_back(store.data(entry));
        c.grads.push_back(store.grads() + entry.offset);
        break;
      case ParamKind::kBuffer:
        c.buffers.push_back(store.data(entry));
        break;
      case ParamKind::kCounter:
        c.counters.push_back(store.counter(entry));
        break;
    }
  }
}

// Per value, where it sits: own(v), its own buffer's place, or, for a value a concatenation holds
// in place, its columns of its holder's place (T: an offset into the arena, or an address).
template <typename T, typename Own>
static std::vector<T> places(const CallList& calls, const std::vector<int64_t>& columns, Own own) {
  std::vector<T> at(calls.num_values());
  for (int v = calls.num_values() - 1; v >= 0; --v) {  // holders after the values they hold
    const int holder = calls.held_by[v];
    at[v] = holder < 0 ? own(v) : at[holder] + columns[v];
  }
  return at;
}

void Plan::bind_calls(ParamStore& store, const Lifetimes& lifetimes, const ArenaLayout& layout) {
  const bool training = mode_ == PlanMode::kTrain;
  const int num_calls = calls_.num_calls();
  auto at = [&](int buffer) { return address(arena_.data(), layout, buffer); };
  thread_scratch_offset_ = layout.planner.buffer(layout.thread_scratch).offset;
  const std::vector<int64_t> columns = held_columns(calls_, shapes_);
  value_offset_ = places<size_t>(
      calls_, columns, [&](int v) { return layout.planner.buffer(layout.values[v]).offset; });
  row_stride_.assign(calls_.num_values(), 0);
  for (int v = calls_.num_values() - 1; v >= 0; --v) {  // holders after the values they hold
    const int holder = calls_.held_by[v];
    if (holder < 0) continue;
    XTRAIN_CHECK(types_[v] == ElementType::kFloat32 && types_[holder] == ElementType::kFloat32,
                 "a concatenation holds float32 values only");
    row_stride_[v] = row_stride_[holder] > 0 ? row_stride_[holder] : shapes_[holder][3];
  }
  // Per value, its gradient's total (the buffer its readers' gradients are summed into).
  const std::vector<float*> gradients =
      training ? places<float*>(calls_, columns, [&](int v) { return at(layout.gradients[v]); })
               : std::vector<float*>(calls_.num_values());
  auto gradient_view = [&](int v, float* data) {
    return TensorView{data, shapes_[v], types_[v], row_stride_[v]};
  };

  forward_calls_.resize(num_calls);
  for (int i = 0; i < num_calls; ++i) {
    LayerCall& c = forward_calls_[i];
    const int out = i + 1;
    for (size_t slot = 0; slot < calls_.inputs[i].size(); ++slot) {
      const int v = calls_.inputs[i][slot];
      c.inputs.push_back(value_view(v));
      const int id = layout.input_gradients[i][slot];
      c.dinputs.push_back(!training                ? TensorView{}
                          : calls_.held_by[v] >= 0 ? gradient_view(v, gradients[v])
                                                   : gradient_view(v, at(id)));
    }
    c.output = value_view(out);
    if (training) c.adds_to_dinputs = layout.adds_to_gradients[i];
    c.doutput = training ? gradient_view(out, gradients[out]) : TensorView{};
    const bool is_loss = calls_.has_loss && i == num_calls - 1;
    if (is_loss) {
      c.labels = labels_.data();
      c.label_mix = &label_mix_;
    } else {
      bind_parameters(store, i, c);
    }
    c.saved = at(layout.saved[i]);
    c.workspace = at(layout.workspace);
    c.training = training;
    c.precision = precision_;
  }
  bind_backward(lifetimes, layout);
}

void Plan::bind_backward(const Lifetimes& lifetimes, const ArenaLayout& layout) {
  const int num_calls = calls_.num_calls();
  auto at = [&](int buffer) { return address(arena_.data(), layout, buffer); };
  // The backward's calls read rebuilt values where there are some (a view without data where
  // no backward reads the value).
  backward_calls_ = forward_calls_;
  rebuild_before_.resize(num_calls);
  gradient_sums_after_.resize(num_calls);
  if (mode_ != PlanMode::kTrain) return;
  for (int i = 0; i < num_calls; ++i) {
    LayerCall& c = backward_calls_[i];
    for (size_t slot = 0; slot < calls_.inputs[i].size(); ++slot) {
      const int v = calls_.inputs[i][slot];
      if (lifetimes.rebuilt[v]) {
        c.inputs[slot] = {at(layout.rebuilt_copies[v]), shapes_[v], types_[v]};
      }
    }
    const int out = i + 1;
    if (lifetimes.rebuilt[out]) {
      c.output = {at(layout.rebuilt_copies[out]), shapes_[out], types_[out]};
    }
  }
  const int last_tick = lifetimes.num_ticks - 1;
  for (int v = 1; v < calls_.num_values(); ++v) {
    const Lifetime& copy = lifetimes.rebuilt_copies[v];
    if (!copy.empty()) rebuild_before_[last_tick - copy.first].push_back(v - 1);
  }
  for (int v = 0; v < calls_.num_values(); ++v) {
    if (lifetimes.first_reader[v] < 0 || calls_.held_by[v] >= 0) continue;  // held: one reader
    GradientSum sum{{at(layout.gradients[v]), types_[v]}, shapes_[v].numel(), {}};
    for (int i = 0; i < num_calls; ++i) {
      for (size_t slot = 0; slot < calls_.inputs[i].size(); ++slot) {
        const int id = layout.input_gradients[i][slot];
        if (calls_.inputs[i][slot] == v && id != layout.gradients[v]) {
          sum.others.push_back({at(id), types_[v]});
        }
      }
    }
    if (!sum.others.empty()) gradient_sums_after_[lifetimes.first_reader[v]].push_back(sum);
  }
}

void Plan::set_images(int64_t first, int64_t count, ConstElements images) {
  const TensorView in = input();
  const int64_t image = in.numel() / in.shape[0];
  XTRAIN_CHECK(first >= 0 && count >= 0 && first + count <= in.shape[0],
               "set_images: images [{}, {}) of a batch of {}", first, first + count, in.shape[0]);
  const Elements to = in.elements().at(first * image);
  if (images.type == ElementType::kFloat32) {
    write_floats(images.f32(), count * image, to);
  } else {
    XTRAIN_CHECK(to.type == ElementType::kBFloat16,
                 "set_images: bfloat16 images for a float32 input");
    std::copy_n(images.bf16(), count * image, to.bf16());
  }
}

int32_t* Plan::labels() {
  XTRAIN_CHECK(calls_.has_loss, "this plan has no loss, so no labels");
  return labels_.data();
}

void Plan::set_label_mix(float mix) {
  XTRAIN_CHECK(calls_.has_loss, "this plan has no loss, so no labels to mix");
  XTRAIN_CHECK(mix >= 0.0f && mix <= 1.0f, "a label mix must be in [0, 1], got {}", mix);
  label_mix_ = mix;
}

float Plan::loss() const {
  XTRAIN_CHECK(calls_.has_loss, "this plan has no loss");
  return forward_calls_.back().output.f32()[0];
}

template <typename Call>
void Plan::timed(int i, LayerTiming::Pass pass, Call&& call) {
  if (!profiling_) return call();
  const auto start = std::chrono::steady_clock::now();
  call();
  using Seconds = std::chrono::duration<double>;
  timings_.push_back({i, pass, Seconds(start - compiled_at_).count(),
                      Seconds(std::chrono::steady_clock::now() - start).count()});
}

void Plan::run_call(int i, bool backward) {
  using Pass = LayerTiming::Pass;
  const Layer& layer = *calls_.layers[i];
  if (!backward) {
    timed(i, Pass::kForward, [&] { layer.forward(forward_calls_[i]); });
    return;
  }
  for (int producer : rebuild_before_[i]) {
    timed(producer, Pass::kRebuild,
          [&] { calls_.layers[producer]->recompute_output(backward_calls_[producer]); });
  }
  timed(i, Pass::kBackward, [&] { layer.backward(backward_calls_[i]); });
}

Exec Plan::with_scratch(const Exec& ex) {
  XTRAIN_CHECK(ex.num_threads() <= kernel_threads_,
               "a plan compiled for {} kernel threads cannot run on {}", kernel_threads_,
               ex.num_threads());
  Exec planned = ex;
  planned.scratch = arena_.data() + thread_scratch_offset_;
  return planned;
}

void Plan::forward(const Exec& ex, const StepSeed& step) {
  // Core 0's key is the one every core shares for the draws per sample.
  forward_keyed(ex, kernels::dropout_step_key(step.seed, step.global_step, step.ordinal),
                kernels::dropout_step_key(step.seed, step.global_step, 0),
                int64_t{step.ordinal} * input().shape[0]);
}

void Plan::forward(const Exec& ex, uint32_t step_key) {
  forward_keyed(ex, step_key, step_key, /*first_sample=*/0);
}

void Plan::forward_keyed(const Exec& ex, uint32_t step_key, uint32_t batch_key,
                         int64_t first_sample) {
  const Exec planned = with_scratch(ex);
  for (int i = 0; i < calls_.num_calls(); ++i) {
    forward_calls_[i].ex = planned;
    forward_calls_[i].step_key = step_key;
    forward_calls_[i].batch_key = batch_key;
    forward_calls_[i].first_sample = first_sample;
    run_call(i, /*backward=*/false);
  }
}

void Plan::backward(const Exec& ex, const std::function<void(int call)>& after_call) {
  XTRAIN_CHECK(mode_ == PlanMode::kTrain, "backward needs a training plan");
  const Exec planned = with_scratch(ex);
  // Every call before any runs: a rebuild runs its producer's call ahead of that one's backward,
  // and must draw the forward's masks.
  for (int i = 0; i < calls_.num_calls(); ++i) {
    backward_calls_[i].ex = planned;
    backward_calls_[i].step_key = forward_calls_[i].step_key;
    backward_calls_[i].batch_key = forward_calls_[i].batch_key;
    backward_calls_[i].first_sample = forward_calls_[i].first_sample;
  }
  for (int i = calls_.num_calls() - 1; i >= 0; --i) {
    run_call(i, /*backward=*/true);
    for (const GradientSum& sum : gradient_sums_after_[i]) {
      for (ConstElements other : sum.others) kernels::accumulate(sum.n, other, sum.total, planned);
    }
    if (after_call) after_call(i);
  }
}

}  // namespace xtrain
