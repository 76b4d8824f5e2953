// ChannelScale: x [N, H, W, C] times scale [N, 1, 1, C], one value per image and channel, the
// `scale * input` that ends torchvision's SqueezeExcitation (whose scale is [N, C, 1, 1] and
// broadcast over the grid). Both inputs get gradients: dx = dy * scale, and dscale the sum over
// the grid of dy * x. No parameters, nothing saved.
// Not here: the squeeze and the excitation that compute the scale (pooling, two 1x1 convolutions,
// ReLU and Hardsigmoid: models/mobilenet_v3.cpp builds them from their own layers).
#pragma once

#include "lib/nn/layer.h"

namespace xtrain {

class ChannelScale : public Layer {
 public:
  using Layer::Layer;
  // No torch module: the multiplication in SqueezeExcitation.forward.
  const char* type() const override { return "ChannelScale"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_output() const override { return false; }
  // x and its gradient, the output and its gradient may be bfloat16; the scale stays float32.
  bool reads_bfloat16(int slot) const override { return slot == 0; }
  bool writes_bfloat16() const override { return true; }
  bool backward_in_place(int slot) const override { return slot == 0; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;
};

}  // namespace xtrain
