// ChannelShuffle: torchvision's channel_shuffle(torch.cat(inputs, 1), groups) (ShuffleNetV2's
// blocks end with channel_shuffle of their two branches' concatenation, groups 2). Each input is
// copied straight into its shuffled columns (kernels/channel_shuffle.h): the concatenation is
// never built. One input: channel_shuffle(x, groups).
#pragma once

#include "lib/kernels/channel_shuffle.h"
#include "lib/nn/layer.h"

namespace xtrain {

class ChannelShuffle : public Layer {
 public:
  ChannelShuffle(std::string name, int groups);

  const char* type() const override { return "ChannelShuffle"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_input(int slot) const override { return false; }
  bool backward_reads_output() const override { return false; }
  Rebuild rebuild_cost(Precision) const override { return Rebuild::kOnePass; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;

 private:
  int groups_;
};

}  // namespace xtrain
