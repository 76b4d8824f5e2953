#include "lib/nn/batchnorm2d.h"

#include "lib/nn/nhwc.h"

namespace xtrain {

BatchNorm2d::BatchNorm2d(std::string name, int num_features, bool relu)
    : Layer(std::move(name)), num_features_(num_features), relu_(relu) {}

std::vector<ParamSpec> BatchNorm2d::param_specs() const {
  const Shape c{num_features_};
  return {{"weight", c, ParamKind::kParameter, Init::kOnes},
          {"bias", c, ParamKind::kParameter, Init::kZeros},
          {"running_mean", c, ParamKind::kBuffer, Init::kZeros},
          {"running_var", c, ParamKind::kBuffer, Init::kOnes},
          {"num_batches_tracked", Shape{}, ParamKind::kCounter, Init::kZeros}};
}

kernels::BatchNormShape BatchNorm2d::kernel_shape(const Shape& x) const {
  return {x[0] * x[1] * x[2], num_features_, kEps, relu_};
}

Shape BatchNorm2d::output_shape(const std::vector<Shape>& inputs) const {
  check_nhwc(name(), inputs[0], num_features_);
  return inputs[0];
}

size_t BatchNorm2d::saved_floats(const std::vector<Shape>& inputs) const {
  return 2 * static_cast<size_t>(num_features_);
}

void BatchNorm2d::forward(const Step& s) const {
  const kernels::BatchNormShape k = kernel_shape(s.inputs[0].shape);
  const float* gamma = s.params[0];
  const float* beta = s.params[1];
  float* running_mean = s.buffers[0];
  float* running_var = s.buffers[1];
  if (s.training) {
    float* mean = s.saved;
    float* inv_std = s.saved + num_features_;
    kernels::batchnorm_forward_train(k, s.inputs[0].data, gamma, beta, s.output.data, mean, inv_std,
                                     running_mean, running_var, kMomentum, s.ex);
    ++*s.counters[0];
  } else {
    kernels::batchnorm_forward_eval(k, s.inputs[0].data, gamma, beta, running_mean, running_var,
                                    s.output.data, s.ex);
  }
}

void BatchNorm2d::backward(const Step& s) const {
  const float* mean = s.saved;
  const float* inv_std = s.saved + num_features_;
  kernels::batchnorm_backward(kernel_shape(s.inputs[0].shape), s.inputs[0].data, s.output.data,
                              s.doutput.data, s.params[0], mean, inv_std, s.dinputs[0].data,
                              s.grads[0], s.grads[1], s.ex);
}

}  // namespace xtrain
