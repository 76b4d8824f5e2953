// Concat: torch.cat(inputs, dim=1) of NHWC feature maps with the same N, H and W: each pixel's
// channels of inputs[0], then inputs[1], ... (SqueezeNet's Fire, Inception's Mixed blocks). A
// copy: every kernel reads and writes dense NHWC rows, so an input cannot simply be a slice of
// the output without a row stride in every kernel (that, and a planner placing branches side by
// side, is the zero-copy design; not built). DenseNet's growing concatenations are never built:
// its BatchNorm2d layers read their inputs part by part (batchnorm2d.h).
#pragma once

#include "lib/nn/layer.h"

namespace xtrain {

class Concat : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "Concat"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_input(int slot) const override { return false; }
  bool backward_reads_output() const override { return false; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;
};

}  // namespace xtrain
