// LayerNorm as torch.nn.LayerNorm(C, eps) over the last dimension: each row of C values (an NHWC
// pixel's channels, or an [N, C] row) normalized by its own statistics, with a learned weight
// (ones) and bias (zeros) per channel. On NHWC values it is torchvision's LayerNorm2d, which
// permutes NCHW to put channels last first; on the rows of a ConvNeXt block it is the LayerNorm
// between the permutes. Saves each row's mean and rstd for the backward.
// Not here: the formulas (kernels/layer_norm.h).
#pragma once

#include <string>

#include "lib/kernels/layer_norm.h"
#include "lib/nn/layer.h"

namespace xtrain {

class LayerNorm : public Layer {
 public:
  LayerNorm(std::string name, int normalized_shape, float eps = 1e-5f);

  const char* type() const override { return "LayerNorm"; }
  std::vector<ParamSpec> param_specs() const override;
  bool is_normalization() const override { return true; }
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  size_t saved_floats(const std::vector<Shape>& inputs) const override;
  size_t workspace_floats(
      const std::vector<Shape>& inputs,
      const std::vector<std::optional<ElementType>>& gradient_types) const override;
  bool backward_reads_output() const override { return false; }
  // x and its gradient, the output and its gradient may be bfloat16; the statistics stay float32.
  bool reads_bfloat16(int slot) const override { return true; }
  bool writes_bfloat16() const override { return true; }
  bool backward_in_place(int slot) const override { return true; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;

 private:
  kernels::LayerNormShape kernel_shape(const Shape& x) const;

  int channels_;
  float eps_;
};

}  // namespace xtrain
