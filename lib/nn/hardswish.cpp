#include "lib/nn/hardswish.h"

#include "lib/kernels/hard_activations.h"

namespace xtrain {

void Hardswish::forward(const LayerCall& s) const {
  kernels::hardswish_forward(s.output.numel(), s.inputs[0].elements(), s.output.elements(), s.ex);
}

void Hardswish::backward(const LayerCall& s) const {
  kernels::hardswish_backward(s.output.numel(), s.inputs[0].elements(), s.doutput.elements(),
                              s.dinputs[0].elements(), s.ex);
}

}  // namespace xtrain
