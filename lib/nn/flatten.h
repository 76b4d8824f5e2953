// Flatten: torch.flatten(x, 1) of an [N, H, W, C] feature map, [N, C * H * W] in PyTorch's
// channel-major order, so a Linear after it (VGG's and AlexNet's classifier over 512 x 7 x 7 or
// 256 x 6 x 6 features) has torchvision's weight as it stands. The size is fixed when the model is
// built (an adaptive pooling before it makes it so), because the Linear's width depends on it.
#pragma once

#include "lib/nn/layer.h"

namespace xtrain {

class Flatten : public Layer {
 public:
  Flatten(std::string name, int height, int width);

  const char* type() const override { return "Flatten"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_input(int slot) const override { return false; }
  bool backward_reads_output() const override { return false; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;

 private:
  int height_, width_;
};

}  // namespace xtrain
