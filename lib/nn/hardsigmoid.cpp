#include "lib/nn/hardsigmoid.h"

#include "lib/kernels/hard_activations.h"

namespace xtrain {

void Hardsigmoid::forward(const LayerCall& s) const {
  kernels::hardsigmoid_forward(s.output.numel(), s.inputs[0].elements(), s.output.elements(), s.ex);
}

void Hardsigmoid::backward(const LayerCall& s) const {
  kernels::hardsigmoid_backward(s.output.numel(), s.inputs[0].elements(), s.doutput.elements(),
                                s.dinputs[0].elements(), s.ex);
}

}  // namespace xtrain
