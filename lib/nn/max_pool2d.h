// MaxPool2d(kernel_size, stride, padding, ceil_mode) as torch.nn.MaxPool2d (no dilation). A
// training plan keeps its output rather than rebuilding it: that would read the input, four
// times larger (ResNet's stem activation), and hold it from the first stage's backward on. In
// bfloat16 plans it reads and writes bfloat16, so that ResNet's stem activation, kept for its
// backward, is stored so too.
#pragma once

#include "lib/kernels/max_pool2d.h"
#include "lib/nn/layer.h"

namespace xtrain {

class MaxPool2d : public Layer {
 public:
  MaxPool2d(std::string name, int kernel_size, int stride, int padding, bool ceil_mode = false);

  const char* type() const override { return "MaxPool2d"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_output() const override { return false; }
  bool writes_bfloat16() const override { return true; }
  bool reads_bfloat16(int slot) const override { return true; }
  bool writes_columns() const override { return true; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;

 private:
  kernels::MaxPool2dShape kernel_shape(const Shape& x, int64_t y_row) const;

  int kernel_size_, stride_, padding_;
  bool ceil_mode_;
};

}  // namespace xtrain
