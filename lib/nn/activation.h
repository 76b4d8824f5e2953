// The element-wise activations on their own, on any shape, as torch.nn's modules: Hardswish
// (MobileNetV3's classifier, after its first Linear), Hardsigmoid and Sigmoid (the gates of
// MobileNetV3's, EfficientNet's and RegNetY's squeeze-and-excitation blocks), SiLU (inside
// EfficientNet's), GELU (between the two Linear layers of ConvNeXt's blocks).
// After a BatchNorm the activation is fused into it instead (BatchNorm2d::Fused). The backward
// takes the gradient from the input, as the kernels do.
// Not here: the formulas and their conventions at the kinks (kernels/activations.h); the ReLU
// layer the ResNets build (relu.h), whose backward reads its mask from the output.
#pragma once

#include <string>

#include "lib/kernels/activations.h"
#include "lib/nn/layer.h"

namespace xtrain {

class Activation : public Layer {
 public:
  Activation(std::string name, kernels::Activation kind) : Layer(std::move(name)), kind_(kind) {}
  // torch's module name of an activation: "Hardswish", "SiLU", ...
  static const char* torch_name(kernels::Activation kind);
  const char* type() const override { return torch_name(kind_); }
  Shape output_shape(const std::vector<Shape>& inputs) const override { return inputs[0]; }
  bool backward_reads_output() const override { return false; }  // the gradient comes from x
  // Element-wise: each element of dy is read before dx's is written.
  bool backward_in_place(int slot) const override { return true; }
  // GELU reads and writes bfloat16, between ConvNeXt's Linear layers that do too; the others
  // keep float32, which leaves the bfloat16 plans of MobileNetV3 and EfficientNet as they were.
  bool reads_bfloat16(int slot) const override { return kind_ == kernels::Activation::kGELU; }
  bool writes_bfloat16() const override { return kind_ == kernels::Activation::kGELU; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;

 private:
  kernels::Activation kind_;
};

}  // namespace xtrain
