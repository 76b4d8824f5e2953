// StochasticDepth: torchvision.ops.StochasticDepth(p, mode="row") made deterministic, on the
// residual branch of EfficientNet's and ConvNeXt's blocks. Training zeroes each sample's branch
// with probability p and scales the kept ones by 1 / (1 - p); evaluation passes x through. The
// mask is a pure function of the step's key for draws per sample, the layer's name and the
// sample's index in the step's whole batch (LayerCall::batch_key and first_sample;
// kernels/stochastic_depth.h, Dropout's hash): a sample draws the same on any core, and the
// backward and a rebuild draw it again instead of saving it.
#pragma once

#include "lib/kernels/stochastic_depth.h"
#include "lib/nn/layer.h"

namespace xtrain {

class StochasticDepth : public Layer {
 public:
  StochasticDepth(std::string name, double p);

  const char* type() const override { return "StochasticDepth"; }
  Shape output_shape(const std::vector<Shape>& inputs) const override { return inputs[0]; }
  bool backward_reads_input(int slot) const override { return false; }
  bool backward_reads_output() const override { return false; }
  // One pass, and the same mask again: the rebuild runs with the forward's step key.
  Rebuild rebuild_cost(Precision) const override { return Rebuild::kOnePass; }
  // Element-wise: each element of dy is read before dx's is written.
  bool backward_in_place(int slot) const override { return true; }
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;

 private:
  // The kernels' view of call s: samples and their rows, this layer's key in s's step.
  kernels::StochasticDepthShape kernel_shape(const LayerCall& s) const;

  double p_;
};

}  // namespace xtrain
