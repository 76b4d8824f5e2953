// Hardsigmoid as torch.nn.Hardsigmoid, y = relu6(x + 3) / 6, on any shape: the gate of
// MobileNetV3's squeeze-and-excitation blocks. The backward takes torch's gradient from the input
// (kernels/hard_activations.h). Not here: the formulas and their conventions at the kinks
// (kernels/hard_activations.h).
#pragma once

#include "lib/nn/layer.h"

namespace xtrain {

class Hardsigmoid : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "Hardsigmoid"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override { return inputs[0]; }
  bool backward_reads_output() const override { return false; }  // the gradient comes from x
  // Element-wise: each element of dy is read before dx's is written.
  bool backward_in_place(int slot) const override { return true; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;
};

}  // namespace xtrain
