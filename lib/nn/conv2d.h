// Conv2d: torch.nn.Conv2d with a square kernel, stride, zero padding and groups (ResNeXt).
// weight is stored [KH, KW, C_in / groups, C_out] (checkpoints convert to PyTorch's OIHW, O x
// C_in / groups x KH x KW, at the file boundary); its family's WeightInit draws it.
#pragma once

#include "lib/kernels/conv2d.h"
#include "lib/nn/layer.h"
#include "lib/nn/weight_init.h"

namespace xtrain {

class Conv2d : public Layer {
 public:
  Conv2d(std::string name, int in_channels, int out_channels, int kernel_size, int stride,
         int padding, bool bias, int groups = 1, WeightInit init = {});

  const char* type() const override { return "Conv2d"; }
  std::vector<ParamSpec> param_specs() const override;
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_output() const override { return false; }
  // A pointwise convolution over at most 64 input channels: at most 64 multiply-adds per output
  // element rebuilt (ResNet-50's layer1 expansions 64 -> 256: 1% more arithmetic per step, 10 MB
  // less memory per image).
  Rebuild rebuild_cost() const override {
    return kernel_size_ == 1 && in_channels_ <= 64 ? Rebuild::kArithmetic : Rebuild::kNo;
  }
  size_t workspace_floats(const std::vector<Shape>& inputs) const override;
  int64_t macs(const std::vector<Shape>& inputs) const override;
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;

 private:
  kernels::Conv2dShape kernel_shape(const Shape& x) const;

  int in_channels_, out_channels_, kernel_size_, stride_, padding_;
  bool bias_;
  int groups_;
  WeightInit init_;
};

}  // namespace xtrain
