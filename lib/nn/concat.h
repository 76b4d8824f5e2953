// Concat: torch.cat(inputs, dim=1) of NHWC feature maps with the same N, H and W: each pixel's
// channels of inputs[0], then inputs[1], ... (SqueezeNet's Fire, Inception's Mixed blocks).
// A plan holds an input in place, as columns of the output, when its producer can write there
// (Layer::writes_columns) and nothing else reads it (plan_phases.h): then there is nothing to
// copy, forward or backward. Other inputs are copied into their columns, and their gradients out.
// DenseNet's growing concatenations are never built: its BatchNorm2d layers read their inputs
// part by part (batchnorm2d.h).
#pragma once

#include "lib/nn/layer.h"

namespace xtrain {

class Concat : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "Concat"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_input(int slot) const override { return false; }
  bool backward_reads_output() const override { return false; }
  bool is_concatenation() const override { return true; }
  bool writes_columns() const override { return true; }  // Inception's nested concatenations
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;
};

}  // namespace xtrain
