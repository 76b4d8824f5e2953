#include "lib/nn/linear.h"

#include "lib/base/check.h"

namespace xtrain {

Linear::Linear(std::string name, int in_features, int out_features, WeightInit init)
    : Layer(std::move(name)), in_features_(in_features), out_features_(out_features), init_(init) {
  XTRAIN_CHECK(in_features > 0 && out_features > 0, "Linear {}: invalid sizes {} -> {}",
               this->name(), in_features, out_features);
}

std::vector<ParamSpec> Linear::param_specs() const {
  return {weight_spec(init_, Shape{out_features_, in_features_}, in_features_, out_features_),
          bias_spec(init_, out_features_, in_features_)};
}

kernels::LinearShape Linear::kernel_shape(const Shape& x) const {
  return {static_cast<int>(x[0]), in_features_, out_features_};
}

Shape Linear::output_shape(const std::vector<Shape>& inputs) const {
  const Shape& x = inputs[0];
  XTRAIN_CHECK(x.rank() == 2 && x[1] == in_features_, "Linear {}: expected input [N, {}], got {}",
               name(), in_features_, x.str());
  return Shape{x[0], out_features_};
}

int64_t Linear::macs(const std::vector<Shape>& inputs) const {
  return inputs[0][0] * int64_t{in_features_} * out_features_;
}

void Linear::forward(const LayerCall& s) const {
  kernels::linear_forward(kernel_shape(s.inputs[0].shape), s.inputs[0].f32(), s.params[0],
                          s.params[1], s.output.f32(), s.ex, s.precision);
}

void Linear::backward(const LayerCall& s) const {
  const kernels::LinearShape k = kernel_shape(s.inputs[0].shape);
  if (!s.dinputs[0].empty()) {
    kernels::linear_backward_data(k, s.doutput.f32(), s.params[0], s.dinputs[0].f32(), s.ex,
                                  s.precision);
  }
  kernels::linear_backward_weight(k, s.inputs[0].f32(), s.doutput.f32(), s.grads[0], s.grads[1],
                                  s.ex, s.precision);
}

}  // namespace xtrain
