// Hardswish as torch.nn.Hardswish, y = x * relu6(x + 3) / 6, on any shape: MobileNetV3's
// classifier, after its first Linear; after a BatchNorm it is fused into it
// (BatchNorm2d::Fused::kHardswish). The backward takes torch's gradient from the input
// (kernels/hard_activations.h). Not here: the formulas and their conventions at the kinks
// (kernels/hard_activations.h).
#pragma once

#include "lib/nn/layer.h"

namespace xtrain {

class Hardswish : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "Hardswish"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override { return inputs[0]; }
  bool backward_reads_output() const override { return false; }  // the gradient comes from x
  // Element-wise: each element of dy is read before dx's is written.
  bool backward_in_place(int slot) const override { return true; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;
};

}  // namespace xtrain
