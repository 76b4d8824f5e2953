#include "lib/nn/channel_scale.h"

#include "lib/base/check.h"
#include "lib/kernels/channel_scale.h"
#include "lib/nn/nhwc.h"

namespace xtrain {
namespace {

kernels::ChannelScaleShape kernel_shape(const Shape& x) {
  return {static_cast<int>(x[0]), x[1] * x[2], static_cast<int>(x[3])};
}

}  // namespace

Shape ChannelScale::output_shape(const std::vector<Shape>& inputs) const {
  XTRAIN_CHECK(inputs.size() == 2, "{}: expected 2 inputs (x, scale), got {}", name(),
               inputs.size());
  const Shape& x = inputs[0];
  check_nhwc(name(), x);
  const Shape expected{x[0], 1, 1, x[3]};
  XTRAIN_CHECK(inputs[1] == expected, "{}: expected a scale of shape {} for x {}, got {}", name(),
               expected.str(), x.str(), inputs[1].str());
  return x;
}

void ChannelScale::forward(const LayerCall& s) const {
  kernels::channel_scale_forward(kernel_shape(s.inputs[0].shape), s.inputs[0].elements(),
                                 s.inputs[1].f32(), s.output.elements(), s.ex);
}

void ChannelScale::backward(const LayerCall& s) const {
  const TensorView& dscale = s.dinputs[1];
  kernels::channel_scale_backward(kernel_shape(s.inputs[0].shape), s.inputs[0].elements(),
                                  s.inputs[1].f32(), s.doutput.elements(), s.dinputs[0].elements(),
                                  dscale.empty() ? nullptr : dscale.f32(), s.ex);
}

}  // namespace xtrain
