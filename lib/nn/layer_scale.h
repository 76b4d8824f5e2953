// LayerScale: ConvNeXt's `self.layer_scale * self.block(input)`, each channel of x (NHWC) times a
// learned value, the parameter torchvision keeps on the CNBlock itself: a layer named after the
// block ("features.1.0") with one tensor "layer_scale" of PyTorch's shape [C, 1, 1], set to
// layer_scale (1e-6) at first. dx = dy * scale, dscale the sum over the batch's pixels of dy * x.
// Not here: a scale per image (ChannelScale), the block's stochastic depth and residual sum.
#pragma once

#include <string>

#include "lib/kernels/layer_scale.h"
#include "lib/nn/layer.h"

namespace xtrain {

class LayerScale : public Layer {
 public:
  LayerScale(std::string name, int channels, float initial_value);

  // No torch module: the multiplication in CNBlock.forward.
  const char* type() const override { return "LayerScale"; }
  std::vector<ParamSpec> param_specs() const override;
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  size_t workspace_floats(
      const std::vector<Shape>& inputs,
      const std::vector<std::optional<ElementType>>& gradient_types) const override;
  bool backward_reads_output() const override { return false; }
  // x and its gradient, the output and its gradient may be bfloat16; the scale stays float32.
  bool reads_bfloat16(int slot) const override { return true; }
  bool writes_bfloat16() const override { return true; }
  bool backward_in_place(int slot) const override { return true; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;

 private:
  kernels::LayerScaleShape kernel_shape(const Shape& x) const;

  int channels_;
  float initial_value_;
};

}  // namespace xtrain
