#include "lib/graph/plan.h"

#include <algorithm>

#include "lib/base/check.h"
#include "lib/kernels/add.h"
#include "lib/nn/cross_entropy_loss.h"

namespace xtrain {

// What the first half of compiling hands the second: where every buffer is in the arena.
struct Plan::Layout {
  std::vector<std::vector<int>> inputs;  // per layer, the values it reads
  ArenaPlanner planner;                  // every buffer, placed
  size_t arena_floats;
  std::vector<int> value_buffer;                     // per value
  std::vector<std::vector<int>> grad_buffer;         // [node][slot], -1: not needed
  std::vector<int> main_grad;                        // per value, -1: none
  std::vector<std::vector<int>> extra_grad_buffers;  // per value: readers after the first
  std::vector<int> saved_buffer;                     // per node
  int workspace_buffer;
};

size_t Plan::arena_bytes_for(const Graph& graph, const Shape& input, PlanMode mode) {
  Plan plan(graph, input, mode, /*label_smoothing=*/0.0f);  // smoothing changes no buffer
  return plan.lay_out(graph).arena_floats * sizeof(float);
}

Plan::Plan(const Graph& graph, const Shape& input, PlanMode mode, float label_smoothing)
    : input_shape_(input),
      mode_(mode),
      loss_(std::make_unique<CrossEntropyLoss>("loss", label_smoothing)),
      logits_value_(graph.output()) {}

Plan::Layout Plan::lay_out(const Graph& graph) {
  const bool training = mode_ == PlanMode::kTrain;
  shapes_ = graph.infer_shapes(input_shape_);
  shapes_.push_back(loss_->output_shape({shapes_[logits_value_]}));
  XTRAIN_CHECK(shapes_[logits_value_].rank() == 2,
               "the model's output must be logits [N, K], got {}", shapes_[logits_value_].str());

  // Every node's inputs, the loss reading the logits last.
  std::vector<std::vector<int>> inputs;
  for (const Node& node : graph.nodes()) {
    layers_.push_back(node.layer.get());
    inputs.push_back(node.inputs);
  }
  layers_.push_back(loss_.get());
  inputs.push_back({logits_value_});
  const int num_nodes = static_cast<int>(layers_.size());
  const int num_values = num_nodes + 1;

  // Steps: forward of node i is step i, its backward step 2 * num_nodes - 1 - i.
  const int last_step = training ? 2 * num_nodes - 1 : num_nodes - 1;
  auto backward_step = [&](int node) { return 2 * num_nodes - 1 - node; };
  ArenaPlanner planner;

  // Activations live from their producer to their last reader, forward or backward.
  std::vector<int> last_read(num_values);
  for (int v = 0; v < num_values; ++v) last_read[v] = std::max(v - 1, 0);
  for (int i = 0; i < num_nodes; ++i) {
    const bool keeps_input = training && layers_[i]->backward_reads_input();
    for (int v : inputs[i])
      last_read[v] = std::max(last_read[v], keeps_input ? backward_step(i) : i);
    if (training && layers_[i]->backward_reads_output()) last_read[i + 1] = backward_step(i);
  }
  // The caller fills the image before forward and reads logits and loss after it, and forward
  // may run again on the same image (finite differences): these three live throughout.
  for (int v : {int{Graph::kImage}, logits_value_, num_values - 1}) last_read[v] = last_step;
  std::vector<int> value_buffer(num_values);
  for (int v = 0; v < num_values; ++v) {
    value_buffer[v] = planner.add(shapes_[v].numel(), std::max(v - 1, 0), last_read[v]);
  }

  // grad_buffer[node][slot]: the gradient buffer that node writes for its input `slot`, from that
  // node's backward to the backward of the input's producer (nothing needs d(image)).
  std::vector<std::vector<int>> grad_buffer(num_nodes);
  std::vector<int> main_grad(num_values, -1);
  std::vector<std::vector<int>> extra_grad_buffers(num_values);
  if (training) {
    for (int i = 0; i < num_nodes; ++i) {
      for (int v : inputs[i]) {
        int id = -1;
        if (v != Graph::kImage) {
          id = planner.add(shapes_[v].numel(), backward_step(i), backward_step(v - 1));
          if (main_grad[v] < 0) {
            main_grad[v] = id;
          } else {
            extra_grad_buffers[v].push_back(id);
          }
        }
        grad_buffer[i].push_back(id);
      }
    }
  }
  std::vector<int> saved_buffer(num_nodes);
  size_t workspace_floats = 0;
  std::vector<std::vector<Shape>> input_shapes(num_nodes);
  for (int i = 0; i < num_nodes; ++i) {
    for (int v : inputs[i]) input_shapes[i].push_back(shapes_[v]);
    saved_buffer[i] =
        planner.add(layers_[i]->saved_floats(input_shapes[i]), i, training ? backward_step(i) : i);
    workspace_floats = std::max(workspace_floats, layers_[i]->workspace_floats(input_shapes[i]));
  }
  const int workspace_buffer = planner.add(workspace_floats, 0, last_step);
  const size_t arena_floats = planner.place();
  return {std::move(inputs),
          std::move(planner),
          arena_floats,
          std::move(value_buffer),
          std::move(grad_buffer),
          std::move(main_grad),
          std::move(extra_grad_buffers),
          std::move(saved_buffer),
          workspace_buffer};
}

Plan::Plan(const Graph& graph, ParamStore& store, const Shape& input, PlanMode mode,
           float label_smoothing)
    : Plan(graph, input, mode, label_smoothing) {
  const bool training = mode == PlanMode::kTrain;
  const Layout layout = lay_out(graph);
  const std::vector<std::vector<int>>& inputs = layout.inputs;
  const ArenaPlanner& planner = layout.planner;
  const int num_nodes = static_cast<int>(layers_.size());
  const int num_values = num_nodes + 1;
  // Every buffer is written before it is read, so the arena is not cleared: untouched pages
  // cost no memory.
  arena_ = AlignedBuffer::uninitialized(layout.arena_floats);
  arena_buffers_ = planner.buffers();
  labels_.assign(input[0], 0);
  value_offset_.resize(num_values);
  for (int v = 0; v < num_values; ++v)
    value_offset_[v] = planner.buffer(layout.value_buffer[v]).offset;

  // Build each layer's Step over the arena and the store.
  float* base = arena_.data();
  auto view_of = [&](int buffer, const Shape& shape) {
    return buffer < 0 ? TensorView{} : TensorView{base + planner.buffer(buffer).offset, shape};
  };
  steps_.resize(num_nodes);
  for (int i = 0; i < num_nodes; ++i) {
    Step& s = steps_[i];
    const int out = i + 1;
    for (size_t slot = 0; slot < inputs[i].size(); ++slot) {
      const int v = inputs[i][slot];
      s.inputs.push_back(value_view(v));
      s.dinputs.push_back(training ? view_of(layout.grad_buffer[i][slot], shapes_[v])
                                   : TensorView{});
    }
    s.output = value_view(out);
    s.doutput = training ? view_of(layout.main_grad[out], shapes_[out]) : TensorView{};
    if (i < static_cast<int>(graph.nodes().size())) {
      for (int e = store.first_entry(i); e < store.first_entry(i + 1); ++e) {
        const ParamEntry& entry = store.entries()[e];
        switch (entry.spec.kind) {
          case ParamKind::kParameter:
            s.params.push_back(store.data(entry));
            s.grads.push_back(store.grads() + entry.offset);
            break;
          case ParamKind::kBuffer:
            s.buffers.push_back(store.data(entry));
            break;
          case ParamKind::kCounter:
            s.counters.push_back(store.counter(entry));
            break;
        }
      }
    }
    s.saved = base + planner.buffer(layout.saved_buffer[i]).offset;
    s.workspace = base + planner.buffer(layout.workspace_buffer).offset;
    s.labels = labels_.data();
    s.training = training;
  }
  extra_grads_.resize(num_values);
  for (int v = 0; v < num_values; ++v) {
    for (int id : layout.extra_grad_buffers[v])
      extra_grads_[v].push_back(base + planner.buffer(id).offset);
  }
}

void Plan::run_layer(int i, bool backward) {
  const auto start = std::chrono::steady_clock::now();
  if (backward) {
    layers_[i]->backward(steps_[i]);
  } else {
    layers_[i]->forward(steps_[i]);
  }
  if (!profiling_) return;
  using Seconds = std::chrono::duration<double>;
  timings_.push_back({i, backward, Seconds(start - compiled_at_).count(),
                      Seconds(std::chrono::steady_clock::now() - start).count()});
}

float Plan::forward(const Exec& ex) {
  for (size_t i = 0; i < layers_.size(); ++i) {
    steps_[i].ex = ex;
    run_layer(static_cast<int>(i), /*backward=*/false);
  }
  return steps_.back().output.data[0];
}

void Plan::backward(const Exec& ex) {
  XTRAIN_CHECK(mode_ == PlanMode::kTrain, "backward needs a training plan");
  for (int i = static_cast<int>(layers_.size()) - 1; i >= 0; --i) {
    Step& s = steps_[i];
    s.ex = ex;
    for (float* extra : extra_grads_[i + 1]) {
      kernels::accumulate(s.doutput.numel(), extra, s.doutput.data, ex);
    }
    run_layer(i, /*backward=*/true);
  }
}

}  // namespace xtrain
