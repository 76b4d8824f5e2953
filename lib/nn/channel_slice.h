// ChannelSlice: x[:, start:start + width] of an NHWC value (torch's x.narrow(1, start, width); one
// of ShuffleNetV2's x.chunk(2, dim=1)), copied into a dense value for layers that read dense rows.
// Its gradient is dy in those columns of dx and zero in the others; a value read by two slices
// gets the sum of both, as any value several layers read.
#pragma once

#include "lib/nn/layer.h"

namespace xtrain {

class ChannelSlice : public Layer {
 public:
  ChannelSlice(std::string name, int start, int width);

  const char* type() const override { return "ChannelSlice"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_input(int slot) const override { return false; }
  bool backward_reads_output() const override { return false; }
  Rebuild rebuild_cost(Precision) const override { return Rebuild::kOnePass; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;

 private:
  int start_, width_;
};

}  // namespace xtrain
