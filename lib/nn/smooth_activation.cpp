#include "lib/nn/smooth_activation.h"

#include "lib/kernels/smooth_activations.h"

namespace xtrain {

const char* SmoothActivation::type() const { return kind_ == Kind::kSiLU ? "SiLU" : "Sigmoid"; }

void SmoothActivation::forward(const LayerCall& s) const {
  const auto forward = kind_ == Kind::kSiLU ? kernels::silu_forward : kernels::sigmoid_forward;
  forward(s.output.numel(), s.inputs[0].elements(), s.output.elements(), s.ex);
}

void SmoothActivation::backward(const LayerCall& s) const {
  const auto backward = kind_ == Kind::kSiLU ? kernels::silu_backward : kernels::sigmoid_backward;
  backward(s.output.numel(), s.inputs[0].elements(), s.doutput.elements(), s.dinputs[0].elements(),
           s.ex);
}

}  // namespace xtrain
