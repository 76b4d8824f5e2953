// Conv2d (groups = 1): torch.nn.Conv2d with a square kernel, stride and zero padding.
// weight is stored [KH, KW, C_in, C_out] (checkpoints convert to PyTorch's OIHW at the file
// boundary); torchvision initializes it kaiming-normal with fan_out.
#pragma once

#include "lib/kernels/conv2d.h"
#include "lib/nn/layer.h"

namespace xtrain {

class Conv2d : public Layer {
 public:
  Conv2d(std::string name, int in_channels, int out_channels, int kernel_size, int stride,
         int padding, bool bias);

  const char* type() const override { return "Conv2d"; }
  std::vector<ParamSpec> param_specs() const override;
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_output() const override { return false; }
  size_t workspace_floats(const std::vector<Shape>& inputs) const override;
  int64_t macs(const std::vector<Shape>& inputs) const override;
  void forward(const Step& s) const override;
  void backward(const Step& s) const override;

 private:
  kernels::Conv2dShape kernel_shape(const Shape& x) const;

  int in_channels_, out_channels_, kernel_size_, stride_, padding_;
  bool bias_;
};

}  // namespace xtrain
