// Graph: a model as a list of layers in execution (topological) order. Value 0 is the image
// input [N, H, W, C]; node i produces value i + 1; the last node's value is the logits [N, K].
// Shapes depend on the input and are inferred per input shape. Not here: buffers (plan.h),
// parameter storage (replica.h), construction sugar (graph_builder.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lib/nn/layer.h"

namespace xtrain {

struct Node {
  std::unique_ptr<Layer> layer;
  std::vector<int> inputs;  // value ids
};

class Graph {
 public:
  static constexpr int kImage = 0;  // the value id of the image input

  explicit Graph(int input_channels) : input_channels_(input_channels) {}

  // Appends a node and returns the id of the value it produces.
  int add(std::unique_ptr<Layer> layer, std::vector<int> inputs);

  const std::vector<Node>& nodes() const { return nodes_; }
  int num_values() const { return static_cast<int>(nodes_.size()) + 1; }
  int output() const { return static_cast<int>(nodes_.size()); }
  int input_channels() const { return input_channels_; }

  // The shape of every value for this input; throws xtrain::Error naming the layer that rejects it.
  std::vector<Shape> infer_shapes(const Shape& input) const;
  // Forward multiply-adds over this input (the whole batch).
  int64_t macs(const Shape& input) const;
  // Elements of all trainable parameters, as torch's sum(p.numel() for p in model.parameters()).
  int64_t num_parameters() const;
  // The name of the last layer with parameters: the classifier, whose shapes follow the class
  // count ("fc" in the ResNets and Inception, "classifier.6" in VGG, "classifier" in DenseNet).
  const std::string& classifier() const;

 private:
  std::vector<Node> nodes_;
  int input_channels_;
};

}  // namespace xtrain
