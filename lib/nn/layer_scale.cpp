#include "lib/nn/layer_scale.h"

#include "lib/base/check.h"
#include "lib/nn/nhwc.h"

namespace xtrain {

LayerScale::LayerScale(std::string name, int channels, float initial_value)
    : Layer(std::move(name)), channels_(channels), initial_value_(initial_value) {
  XTRAIN_CHECK(channels > 0, "LayerScale {}: invalid channel count {}", this->name(), channels);
}

std::vector<ParamSpec> LayerScale::param_specs() const {
  return {{"layer_scale", Shape{channels_, 1, 1}, ParamKind::kParameter, Init::kConstant,
           initial_value_}};
}

kernels::LayerScaleShape LayerScale::kernel_shape(const Shape& x) const {
  return {x.numel() / channels_, channels_};
}

Shape LayerScale::output_shape(const std::vector<Shape>& inputs) const {
  XTRAIN_CHECK(inputs.size() == 1, "LayerScale {}: expected 1 input, got {}", name(),
               inputs.size());
  check_nhwc(name(), inputs[0], channels_);
  return inputs[0];
}

size_t LayerScale::workspace_floats(
    const std::vector<Shape>& inputs,
    const std::vector<std::optional<ElementType>>& gradient_types) const {
  return kernels::layer_scale_workspace_floats(kernel_shape(inputs[0]));
}

void LayerScale::forward(const LayerCall& s) const {
  kernels::layer_scale_forward(kernel_shape(s.inputs[0].shape), s.inputs[0].elements(), s.params[0],
                               s.output.elements(), s.ex);
}

void LayerScale::backward(const LayerCall& s) const {
  kernels::layer_scale_backward(kernel_shape(s.inputs[0].shape), s.inputs[0].elements(),
                                s.params[0], s.doutput.elements(), s.dinputs[0].elements(),
                                s.grads[0], s.workspace, s.ex);
}

}  // namespace xtrain
