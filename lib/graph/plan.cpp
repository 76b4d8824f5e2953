#include "lib/graph/plan.h"

#include "lib/base/check.h"
#include "lib/kernels/add.h"
#include "lib/nn/cross_entropy_loss.h"

namespace xtrain {
namespace {

// Offsets are handed out in floats, each region rounded so every buffer starts 64-byte aligned.
class ArenaLayout {
 public:
  size_t take(size_t floats) {
    const size_t offset = size_;
    size_ += AlignedBuffer::round_up(floats);
    return offset;
  }
  size_t size() const { return size_; }

 private:
  size_t size_ = 0;
};

}  // namespace

Plan::Plan(const Graph& graph, ParamStore& store, const Shape& input, PlanMode mode,
           float label_smoothing)
    : input_shape_(input),
      mode_(mode),
      loss_(std::make_unique<CrossEntropyLoss>("loss", label_smoothing)),
      logits_value_(graph.output()) {
  const bool training = mode == PlanMode::kTrain;
  shapes_ = graph.infer_shapes(input);
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

  // Lay out the arena: activations, gradients (one per reader of a value), saved, workspace.
  ArenaLayout layout;
  value_offset_.resize(num_values);
  for (int v = 0; v < num_values; ++v) value_offset_[v] = layout.take(shapes_[v].numel());
  // grad_offsets[node][slot]: the gradient buffer that node writes for its input `slot`.
  std::vector<std::vector<size_t>> grad_offsets(num_nodes);
  std::vector<size_t> main_grad(num_values, SIZE_MAX);
  std::vector<std::vector<size_t>> extra_grad_offsets(num_values);
  if (training) {
    for (int i = 0; i < num_nodes; ++i) {
      for (int v : inputs[i]) {
        size_t offset = SIZE_MAX;
        if (v != Graph::kImage) {  // nothing needs d(image)
          offset = layout.take(shapes_[v].numel());
          if (main_grad[v] == SIZE_MAX) {
            main_grad[v] = offset;
          } else {
            extra_grad_offsets[v].push_back(offset);
          }
        }
        grad_offsets[i].push_back(offset);
      }
    }
  }
  std::vector<size_t> saved_offset(num_nodes);
  size_t workspace_floats = 0;
  std::vector<std::vector<Shape>> input_shapes(num_nodes);
  for (int i = 0; i < num_nodes; ++i) {
    for (int v : inputs[i]) input_shapes[i].push_back(shapes_[v]);
    saved_offset[i] = layout.take(layers_[i]->saved_floats(input_shapes[i]));
    workspace_floats = std::max(workspace_floats, layers_[i]->workspace_floats(input_shapes[i]));
  }
  const size_t workspace_offset = layout.take(workspace_floats);
  arena_ = AlignedBuffer(layout.size());
  labels_.assign(input[0], 0);

  // Build each layer's Step over the arena and the store.
  float* base = arena_.data();
  auto view_at = [&](size_t offset, const Shape& shape) {
    return offset == SIZE_MAX ? TensorView{} : TensorView{base + offset, shape};
  };
  steps_.resize(num_nodes);
  for (int i = 0; i < num_nodes; ++i) {
    Step& s = steps_[i];
    const int out = i + 1;
    for (size_t slot = 0; slot < inputs[i].size(); ++slot) {
      const int v = inputs[i][slot];
      s.inputs.push_back(value_view(v));
      s.dinputs.push_back(training ? view_at(grad_offsets[i][slot], shapes_[v]) : TensorView{});
    }
    s.output = value_view(out);
    s.doutput = training ? view_at(main_grad[out], shapes_[out]) : TensorView{};
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
    s.saved = base + saved_offset[i];
    s.workspace = base + workspace_offset;
    s.labels = labels_.data();
    s.training = training;
  }
  extra_grads_.resize(num_values);
  for (int v = 0; v < num_values; ++v) {
    for (size_t offset : extra_grad_offsets[v]) extra_grads_[v].push_back(base + offset);
  }
}

float Plan::forward(const Exec& ex) {
  for (size_t i = 0; i < layers_.size(); ++i) {
    steps_[i].ex = ex;
    layers_[i]->forward(steps_[i]);
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
    layers_[i]->backward(s);
  }
}

}  // namespace xtrain
