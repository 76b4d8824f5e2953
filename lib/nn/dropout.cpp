#include "lib/nn/dropout.h"

#include <algorithm>

#include "lib/base/check.h"

namespace xtrain {

Dropout::Dropout(std::string name, float p) : Layer(std::move(name)), p_(p) {
  XTRAIN_CHECK(p >= 0.0f && p < 1.0f, "Dropout {}: p must be in [0, 1), got {}", this->name(), p);
}

kernels::DropoutShape Dropout::kernel_shape(const LayerCall& s) const {
  return {s.output.numel(), p_, kernels::dropout_layer_key(s.step_key, name())};
}

void Dropout::forward(const LayerCall& s) const {
  if (!s.training) {  // the identity; a copy, as a plan gives every value its own buffer
    std::copy_n(s.inputs[0].f32(), s.output.numel(), s.output.f32());
    return;
  }
  kernels::dropout_forward(kernel_shape(s), s.inputs[0].f32(), s.output.f32(), s.ex);
}

void Dropout::backward(const LayerCall& s) const {
  if (s.dinputs[0].empty()) return;  // dropout on the image itself
  kernels::dropout_backward(kernel_shape(s), s.doutput.f32(), s.dinputs[0].f32(), s.ex);
}

}  // namespace xtrain
