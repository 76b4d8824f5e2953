// GELU as torch.nn.GELU() (approximate='none'), on any shape: the activation between the two
// Linear layers of ConvNeXt's blocks. The backward takes torch's gradient from the input.
// Not here: the formulas (kernels/gelu.h).
#pragma once

#include <string>

#include "lib/nn/layer.h"

namespace xtrain {

class GELU : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "GELU"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override { return inputs[0]; }
  bool backward_reads_output() const override { return false; }  // the gradient comes from x
  // Element-wise: each element of dy is read before dx's is written.
  bool backward_in_place(int slot) const override { return true; }
  bool reads_bfloat16(int slot) const override { return true; }
  bool writes_bfloat16() const override { return true; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;
};

}  // namespace xtrain
