// Add: the sum y = a + b of two tensors of one shape; both inputs get dy. (A ResNet block's
// residual sum runs fused with its BatchNorm and ReLU: BatchNorm2d::Fused::kAddReLU.)
#pragma once

#include "lib/nn/layer.h"

namespace xtrain {

class Add : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "Add"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_input(int slot) const override { return false; }
  bool backward_reads_output() const override { return false; }
  Rebuild rebuild_cost(Precision) const override { return Rebuild::kOnePass; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;
};

}  // namespace xtrain
