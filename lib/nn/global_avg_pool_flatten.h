// GlobalAvgPoolFlatten: AdaptiveAvgPool2d(1) followed by flatten, as at the head of every ResNet,
// DenseNet and Inception: [N, H, W, C] -> [N, C]. type() is the PyTorch module it stands for.
#pragma once

#include "lib/nn/layer.h"

namespace xtrain {

class GlobalAvgPoolFlatten : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "AdaptiveAvgPool2d"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_input(int slot) const override { return false; }
  bool backward_reads_output() const override { return false; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;
};

}  // namespace xtrain
