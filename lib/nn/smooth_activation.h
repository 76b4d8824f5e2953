// SiLU and Sigmoid as torch.nn.SiLU (y = x * sigmoid(x)) and torch.nn.Sigmoid
// (y = 1 / (1 + exp(-x))), on any shape: EfficientNet's activation inside its
// squeeze-and-excitation blocks, and their gate. After a BatchNorm the SiLU is fused into it
// instead (BatchNorm2d::Fused::kSiLU). The backward takes the gradient from the input.
// Not here: the formulas (kernels/smooth_activations.h).
#pragma once

#include <string>

#include "lib/nn/layer.h"

namespace xtrain {

class SmoothActivation : public Layer {
 public:
  enum class Kind { kSiLU, kSigmoid };

  SmoothActivation(std::string name, Kind kind) : Layer(std::move(name)), kind_(kind) {}
  const char* type() const override;  // torch's module name
  Shape output_shape(const std::vector<Shape>& inputs) const override { return inputs[0]; }
  bool backward_reads_output() const override { return false; }  // the gradient comes from x
  // Element-wise: each element of dy is read before dx's is written.
  bool backward_in_place(int slot) const override { return true; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;

 private:
  Kind kind_;
};

}  // namespace xtrain
