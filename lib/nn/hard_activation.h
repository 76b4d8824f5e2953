// Hardswish and Hardsigmoid as torch.nn.Hardswish (y = x * relu6(x + 3) / 6) and
// torch.nn.Hardsigmoid (y = relu6(x + 3) / 6), on any shape: MobileNetV3's classifier activation
// after its first Linear, and the gate of its squeeze-and-excitation blocks. After a BatchNorm
// the Hardswish is fused into it instead (BatchNorm2d::Fused::kHardswish). The backward takes
// torch's gradient from the input.
// Not here: the formulas and their conventions at the kinks (kernels/hard_activations.h).
#pragma once

#include <string>

#include "lib/nn/layer.h"

namespace xtrain {

class HardActivation : public Layer {
 public:
  enum class Kind { kHardswish, kHardsigmoid };

  HardActivation(std::string name, Kind kind) : Layer(std::move(name)), kind_(kind) {}
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
