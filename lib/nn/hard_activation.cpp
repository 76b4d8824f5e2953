#include "lib/nn/hard_activation.h"

#include "lib/kernels/hard_activations.h"

namespace xtrain {

const char* HardActivation::type() const {
  return kind_ == Kind::kHardswish ? "Hardswish" : "Hardsigmoid";
}

void HardActivation::forward(const LayerCall& s) const {
  const auto forward =
      kind_ == Kind::kHardswish ? kernels::hardswish_forward : kernels::hardsigmoid_forward;
  forward(s.output.numel(), s.inputs[0].elements(), s.output.elements(), s.ex);
}

void HardActivation::backward(const LayerCall& s) const {
  const auto backward =
      kind_ == Kind::kHardswish ? kernels::hardswish_backward : kernels::hardsigmoid_backward;
  backward(s.output.numel(), s.inputs[0].elements(), s.doutput.elements(), s.dinputs[0].elements(),
           s.ex);
}

}  // namespace xtrain
