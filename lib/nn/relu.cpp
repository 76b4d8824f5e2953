#include "lib/nn/relu.h"

#include "lib/kernels/relu.h"

namespace xtrain {

void ReLU::forward(const LayerCall& s) const {
  kernels::relu_forward(s.output.numel(), s.inputs[0].data, s.output.data, s.ex);
}

void ReLU::backward(const LayerCall& s) const {
  kernels::relu_backward(s.output.numel(), s.output.data, s.doutput.data, s.dinputs[0].data, s.ex);
}

}  // namespace xtrain
