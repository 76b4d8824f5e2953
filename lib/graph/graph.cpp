#include "lib/graph/graph.h"

#include <algorithm>

#include "lib/base/check.h"

namespace xtrain {

int Graph::add(std::unique_ptr<Layer> layer, std::vector<int> inputs) {
  for (int v : inputs) {
    XTRAIN_CHECK(v >= 0 && v < num_values(), "{}: input value {} does not exist yet", layer->name(),
                 v);
  }
  nodes_.push_back({std::move(layer), std::move(inputs)});
  return output();
}

std::vector<Shape> Graph::infer_shapes(const Shape& input) const {
  XTRAIN_CHECK(input.rank() == 4 && input[3] == input_channels_,
               "model input must be [N, H, W, {}], got {}", input_channels_, input.str());
  std::vector<Shape> shapes = {input};
  shapes.reserve(num_values());
  for (const Node& node : nodes_) {
    std::vector<Shape> in;
    for (int v : node.inputs) in.push_back(shapes[v]);
    shapes.push_back(node.layer->output_shape(in));
  }
  return shapes;
}

int64_t Graph::macs(const Shape& input) const {
  const std::vector<Shape> shapes = infer_shapes(input);
  int64_t total = 0;
  for (const Node& node : nodes_) {
    std::vector<Shape> in;
    for (int v : node.inputs) in.push_back(shapes[v]);
    total += node.layer->macs(in);
  }
  return total;
}

int64_t Graph::num_parameters() const {
  int64_t total = 0;
  for (const Node& node : nodes_) {
    for (const ParamSpec& spec : node.layer->param_specs()) {
      if (spec.kind == ParamKind::kParameter) total += spec.shape.numel();
    }
  }
  return total;
}

const std::string& Graph::classifier() const {
  const auto node = std::find_if(nodes_.rbegin(), nodes_.rend(),
                                 [](const Node& n) { return !n.layer->param_specs().empty(); });
  XTRAIN_CHECK(node != nodes_.rend(), "a model without parameters has no classifier");
  return node->layer->name();
}

}  // namespace xtrain
