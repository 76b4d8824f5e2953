// Dropout: torch.nn.Dropout(p) made deterministic. Training zeroes each element with
// probability p and scales the rest by 1 / (1 - p); evaluation passes x through. The mask is a
// pure function of the forward's step key, the layer's name and the element's index
// (kernels/dropout.h), so the backward and a rebuild regenerate it instead of saving it.
#pragma once

#include "lib/kernels/dropout.h"
#include "lib/nn/layer.h"

namespace xtrain {

class Dropout : public Layer {
 public:
  Dropout(std::string name, float p);

  const char* type() const override { return "Dropout"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override { return inputs[0]; }
  bool backward_reads_input(int slot) const override { return false; }
  bool backward_reads_output() const override { return false; }
  // One pass, and the same mask again: the rebuild runs with the forward's step key.
  Rebuild rebuild_cost(Precision) const override { return Rebuild::kOnePass; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;

 private:
  // The kernels' view of call s: every element, this layer's key in s's step.
  kernels::DropoutShape kernel_shape(const LayerCall& s) const;

  float p_;
};

}  // namespace xtrain
