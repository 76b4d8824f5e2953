// ShortcutPad: the parameter-free option-A shortcut of the CIFAR ResNets (He et al. 2015):
// subsample by the stride and zero-pad the channels up to out_channels (see
// kernels/shortcut_pad.h).
#pragma once

#include "lib/kernels/shortcut_pad.h"
#include "lib/nn/layer.h"

namespace xtrain {

class ShortcutPad : public Layer {
 public:
  ShortcutPad(std::string name, int out_channels, int stride);

  const char* type() const override { return "ShortcutPad"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_input(int slot) const override { return false; }
  bool backward_reads_output() const override { return false; }
  Rebuild rebuild_cost(Precision) const override { return Rebuild::kOnePass; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;

 private:
  kernels::ShortcutPadShape kernel_shape(const Shape& x) const;

  int out_channels_, stride_;
};

}  // namespace xtrain
