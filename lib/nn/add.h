// Add: the residual sum y = a + b of two tensors of one shape; both inputs get dy. With `relu`,
// the ReLU that follows every residual sum in a ResNet runs in the same pass: y = max(a + b, 0)
// and both inputs get dy masked by y > 0.
#pragma once

#include "lib/nn/layer.h"

namespace xtrain {

class Add : public Layer {
 public:
  explicit Add(std::string name, bool relu = false) : Layer(std::move(name)), relu_(relu) {}
  const char* type() const override { return relu_ ? "Add+ReLU" : "Add"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_input() const override { return false; }
  bool backward_reads_output() const override { return relu_; }
  void forward(const Step& s) const override;
  void backward(const Step& s) const override;

 private:
  bool relu_;
};

}  // namespace xtrain
