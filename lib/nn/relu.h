// ReLU: y = max(x, 0); the backward masks dy with y > 0.
#pragma once

#include "lib/nn/layer.h"

namespace xtrain {

class ReLU : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "ReLU"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override { return inputs[0]; }
  bool backward_reads_input(int slot) const override { return false; }  // masks with y > 0
  Rebuild rebuild_cost(Precision) const override { return Rebuild::kOnePass; }
  bool writes_columns() const override { return true; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;
};

}  // namespace xtrain
