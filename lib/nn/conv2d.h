// Conv2d: torch.nn.Conv2d with a kernel of any height and width (Inception's 1x7 and 7x1), one
// stride, zero padding per side pair and groups (ResNeXt).
// weight is stored [KH, KW, C_in / groups, C_out] (checkpoints convert to PyTorch's OIHW, O x
// C_in / groups x KH x KW, at the file boundary); its family's WeightInit draws it.
#pragma once

#include "lib/kernels/conv2d.h"
#include "lib/nn/layer.h"
#include "lib/nn/weight_init.h"

namespace xtrain {

// The sliding window: kernel_h x kernel_w, moved by stride both ways, over the input with pad_h
// zero rows above and below and pad_w zero columns left and right.
struct ConvWindow {
  int kernel_h, kernel_w, stride, pad_h, pad_w;
  static ConvWindow square(int kernel_size, int stride, int padding) {
    return {kernel_size, kernel_size, stride, padding, padding};
  }
};

class Conv2d : public Layer {
 public:
  Conv2d(std::string name, int in_channels, int out_channels, ConvWindow window, bool bias,
         int groups = 1, WeightInit init = {});
  Conv2d(std::string name, int in_channels, int out_channels, int kernel_size, int stride,
         int padding, bool bias, int groups = 1, WeightInit init = {})
      : Conv2d(std::move(name), in_channels, out_channels,
               ConvWindow::square(kernel_size, stride, padding), bias, groups, init) {}

  const char* type() const override { return "Conv2d"; }
  std::vector<ParamSpec> param_specs() const override;
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_output() const override { return false; }
  // A pointwise convolution over at most 64 input channels: at most 64 multiply-adds per output
  // element rebuilt, a small share of a step's arithmetic for one of its larger outputs
  // (ResNet-50's layer1 expansions, 64 -> 256). bfloat16 multiplies at twice the rate, so a
  // bfloat16 plan rebuilds those over up to 128 channels in the same time per element (also
  // layer2's expansions, 128 -> 512). And a stem over an image's few channels with at most 147
  // per output element (7x7x3): its input is kept all step anyway, and its output is among the
  // largest.
  Rebuild rebuild_cost(Precision multiplies) const override {
    const bool pointwise = window_.kernel_h == 1 && window_.kernel_w == 1;
    const int pointwise_channels = multiplies == Precision::kBFloat16 ? 128 : 64;
    const int64_t macs_per_output =
        int64_t{window_.kernel_h} * window_.kernel_w * in_channels_ / groups_;
    const bool stem = in_channels_ <= 3 && macs_per_output <= 7 * 7 * 3;
    return (pointwise && in_channels_ <= pointwise_channels) || stem ? Rebuild::kArithmetic
                                                                     : Rebuild::kNo;
  }
  size_t workspace_floats(
      const std::vector<Shape>& inputs,
      const std::vector<std::optional<ElementType>>& gradient_types) const override;
  bool writes_bfloat16() const override { return true; }
  bool reads_bfloat16(int slot) const override { return true; }
  bool backward_adds(int slot, const std::vector<Shape>& inputs,
                     const std::vector<std::optional<ElementType>>& gradient_types) const override;
  int64_t macs(const std::vector<Shape>& inputs) const override;
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;

 private:
  kernels::Conv2dShape kernel_shape(const Shape& x) const;

  int in_channels_, out_channels_;
  ConvWindow window_;
  bool bias_;
  int groups_;
  WeightInit init_;
};

}  // namespace xtrain
