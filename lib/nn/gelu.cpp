#include "lib/nn/gelu.h"

#include "lib/kernels/gelu.h"

namespace xtrain {

void GELU::forward(const LayerCall& s) const {
  kernels::gelu_forward(s.output.numel(), s.inputs[0].elements(), s.output.elements(), s.ex);
}

void GELU::backward(const LayerCall& s) const {
  kernels::gelu_backward(s.output.numel(), s.inputs[0].elements(), s.doutput.elements(),
                         s.dinputs[0].elements(), s.ex);
}

}  // namespace xtrain
