// Average pooling: torch.nn.AvgPool2d(kernel, stride, padding) (count_include_pad=True, floor
// mode: DenseNet's transitions, Inception's pool branches) and torch.nn.AdaptiveAvgPool2d((OH,
// OW)) (VGG's and AlexNet's fixed grid before the classifier, for any input size). Both average
// bins of the input with one kernel (kernels/avg_pool2d.h) and differ only in how bins are cut.
// Outputs stay [N, OH, OW, C]; GlobalAvgPoolFlatten is the ResNets' AdaptiveAvgPool2d(1).
#pragma once

#include "lib/kernels/avg_pool2d.h"
#include "lib/nn/layer.h"

namespace xtrain {

class AveragePooling : public Layer {
 public:
  using Layer::Layer;
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_input(int slot) const override { return false; }
  bool backward_reads_output() const override { return false; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;

 private:
  // The kernel's view of input x; out_h or out_w < 1 when x is too small.
  virtual kernels::AvgPool2dShape kernel_shape(const Shape& x) const = 0;
};

class AvgPool2d : public AveragePooling {
 public:
  AvgPool2d(std::string name, int kernel_size, int stride, int padding);
  const char* type() const override { return "AvgPool2d"; }

 private:
  kernels::AvgPool2dShape kernel_shape(const Shape& x) const override;
  int kernel_size_, stride_, padding_;
};

class AdaptiveAvgPool2d : public AveragePooling {
 public:
  AdaptiveAvgPool2d(std::string name, int out_h, int out_w);
  const char* type() const override { return "AdaptiveAvgPool2d"; }

 private:
  kernels::AvgPool2dShape kernel_shape(const Shape& x) const override;
  int out_h_, out_w_;
};

}  // namespace xtrain
