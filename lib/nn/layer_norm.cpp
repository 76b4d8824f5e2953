#include "lib/nn/layer_norm.h"

#include "lib/base/check.h"

namespace xtrain {

LayerNorm::LayerNorm(std::string name, int normalized_shape, float eps)
    : Layer(std::move(name)), channels_(normalized_shape), eps_(eps) {
  XTRAIN_CHECK(normalized_shape > 0, "LayerNorm {}: invalid size {}", this->name(),
               normalized_shape);
}

std::vector<ParamSpec> LayerNorm::param_specs() const {
  return {{"weight", Shape{channels_}, ParamKind::kParameter, Init::kOnes},
          {"bias", Shape{channels_}, ParamKind::kParameter, Init::kZeros}};
}

kernels::LayerNormShape LayerNorm::kernel_shape(const Shape& x) const {
  return {x.numel() / channels_, channels_, eps_};
}

Shape LayerNorm::output_shape(const std::vector<Shape>& inputs) const {
  XTRAIN_CHECK(inputs.size() == 1, "LayerNorm {}: expected 1 input, got {}", name(), inputs.size());
  const Shape& x = inputs[0];
  XTRAIN_CHECK(x.rank() >= 2 && x[x.rank() - 1] == channels_,
               "LayerNorm {}: expected an input of {} channels last ([N, C] or NHWC), got {}",
               name(), channels_, x.str());
  return x;
}

size_t LayerNorm::saved_floats(const std::vector<Shape>& inputs) const {
  return 2 * static_cast<size_t>(kernel_shape(inputs[0]).m);  // mean, rstd
}

size_t LayerNorm::workspace_floats(
    const std::vector<Shape>& inputs,
    const std::vector<std::optional<ElementType>>& gradient_types) const {
  return kernels::layer_norm_workspace_floats(kernel_shape(inputs[0]));
}

void LayerNorm::forward(const LayerCall& s) const {
  const kernels::LayerNormShape k = kernel_shape(s.inputs[0].shape);
  kernels::layer_norm_forward(k, s.inputs[0].elements(), s.params[0], s.params[1],
                              s.output.elements(), s.saved, s.saved + k.m, s.ex);
}

void LayerNorm::backward(const LayerCall& s) const {
  const kernels::LayerNormShape k = kernel_shape(s.inputs[0].shape);
  kernels::layer_norm_backward(k, s.inputs[0].elements(), s.doutput.elements(), s.params[0],
                               s.saved, s.saved + k.m, s.dinputs[0].elements(), s.grads[0],
                               s.grads[1], s.workspace, s.ex);
}

}  // namespace xtrain
