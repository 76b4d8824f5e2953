// Add: the residual sum y = a + b of two tensors of one shape; both inputs get dy.
#pragma once

#include "lib/nn/layer.h"

namespace xtrain {

class Add : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "Add"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_input() const override { return false; }
  bool backward_reads_output() const override { return false; }
  void forward(const Step& s) const override;
  void backward(const Step& s) const override;
};

}  // namespace xtrain
