#include "lib/nn/stochastic_depth.h"

#include <algorithm>

#include "lib/base/check.h"
#include "lib/kernels/dropout.h"

namespace xtrain {

StochasticDepth::StochasticDepth(std::string name, double p) : Layer(std::move(name)), p_(p) {
  XTRAIN_CHECK(p >= 0.0 && p < 1.0, "StochasticDepth {}: p must be in [0, 1), got {}", this->name(),
               p);
}

kernels::StochasticDepthShape StochasticDepth::kernel_shape(const LayerCall& s) const {
  const int64_t samples = s.output.shape[0];
  return {samples, s.output.numel() / samples, p_, kernels::dropout_layer_key(s.batch_key, name()),
          s.first_sample};
}

void StochasticDepth::forward(const LayerCall& s) const {
  if (!s.training) {  // the identity; a copy, as a plan gives every value its own buffer
    std::copy_n(s.inputs[0].f32(), s.output.numel(), s.output.f32());
    return;
  }
  kernels::stochastic_depth_forward(kernel_shape(s), s.inputs[0].elements(), s.output.elements(),
                                    s.ex);
}

void StochasticDepth::backward(const LayerCall& s) const {
  kernels::stochastic_depth_backward(kernel_shape(s), s.doutput.elements(), s.dinputs[0].elements(),
                                     s.ex);
}

}  // namespace xtrain
