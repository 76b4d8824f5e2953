// CrossEntropyLoss as torch.nn.CrossEntropyLoss (mean reduction, optional label smoothing) over
// logits [N, K] and the step's labels. Its output is the loss, shape [1]; it starts the backward.
#pragma once

#include "lib/nn/layer.h"

namespace xtrain {

class CrossEntropyLoss : public Layer {
 public:
  CrossEntropyLoss(std::string name, float label_smoothing);

  const char* type() const override { return "CrossEntropyLoss"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  // The saved softmax is enough.
  bool backward_reads_input(int slot) const override { return false; }
  bool backward_reads_output() const override { return false; }
  size_t saved_floats(const std::vector<Shape>& inputs) const override;  // softmax [N, K]
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;

 private:
  float label_smoothing_;
};

}  // namespace xtrain
