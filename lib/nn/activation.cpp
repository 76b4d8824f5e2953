#include "lib/nn/activation.h"

namespace xtrain {

const char* Activation::torch_name(kernels::Activation kind) {
  switch (kind) {
    case kernels::Activation::kNone:
      return "Identity";
    case kernels::Activation::kReLU:
      return "ReLU";
    case kernels::Activation::kReLU6:
      return "ReLU6";
    case kernels::Activation::kHardswish:
      return "Hardswish";
    case kernels::Activation::kHardsigmoid:
      return "Hardsigmoid";
    case kernels::Activation::kSiLU:
      return "SiLU";
    case kernels::Activation::kSigmoid:
      return "Sigmoid";
    case kernels::Activation::kGELU:
      return "GELU";
  }
  return "Identity";
}

void Activation::forward(const LayerCall& s) const {
  kernels::activation_forward(kind_, s.output.numel(), s.inputs[0].elements(), s.output.elements(),
                              s.ex);
}

void Activation::backward(const LayerCall& s) const {
  kernels::activation_backward(kind_, s.output.numel(), s.inputs[0].elements(),
                               s.doutput.elements(), s.dinputs[0].elements(), s.ex);
}

}  // namespace xtrain
