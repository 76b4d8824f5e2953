#include "lib/nn/batchnorm2d.h"

#include "lib/base/check.h"
#include "lib/nn/nhwc.h"

namespace xtrain {

BatchNorm2d::BatchNorm2d(std::string name, int num_features, Fused fused, float eps)
    : Layer(std::move(name)), num_features_(num_features), fused_(fused), eps_(eps) {
  XTRAIN_CHECK(eps > 0.0f, "BatchNorm2d {}: eps must be positive", this->name());
}

const char* BatchNorm2d::type() const {
  switch (fused_) {
    case Fused::kNothing:
      return "BatchNorm2d";
    case Fused::kReLU:
      return "BatchNorm2d+ReLU";
    case Fused::kAddReLU:
      return "BatchNorm2d+Add+ReLU";
  }
  return "BatchNorm2d";
}

std::vector<ParamSpec> BatchNorm2d::param_specs() const {
  const Shape c{num_features_};
  return {{"weight", c, ParamKind::kParameter, Init::kOnes},
          {"bias", c, ParamKind::kParameter, Init::kZeros},
          {"running_mean", c, ParamKind::kBuffer, Init::kZeros},
          {"running_var", c, ParamKind::kBuffer, Init::kOnes},
          {"num_batches_tracked", Shape{}, ParamKind::kCounter, Init::kZeros}};
}

kernels::BatchNormShape BatchNorm2d::kernel_shape(const Shape& x) const {
  return {x[0] * x[1] * x[2], num_features_, eps_, fused_ != Fused::kNothing};
}

const float* BatchNorm2d::residual(const LayerCall& s) const {
  return fused_ == Fused::kAddReLU ? s.inputs[1].data : nullptr;
}

Shape BatchNorm2d::output_shape(const std::vector<Shape>& inputs) const {
  check_nhwc(name(), inputs[0], num_features_);
  const size_t expected_inputs = fused_ == Fused::kAddReLU ? 2 : 1;
  XTRAIN_CHECK(inputs.size() == expected_inputs, "BatchNorm2d {}: expected {} inputs, got {}",
               name(), expected_inputs, inputs.size());
  XTRAIN_CHECK(inputs.size() == 1 || inputs[1] == inputs[0],
               "BatchNorm2d {}: the residual {} differs from the input {}", name(),
               inputs.back().str(), inputs[0].str());
  return inputs[0];
}

size_t BatchNorm2d::workspace_floats(const std::vector<Shape>& inputs) const {
  return kernels::batchnorm_workspace_floats(kernel_shape(inputs[0]));
}

size_t BatchNorm2d::saved_floats(const std::vector<Shape>& inputs) const {
  return kernels::kBatchNormSavedRows * static_cast<size_t>(num_features_);
}

void BatchNorm2d::forward(const LayerCall& s) const {
  const kernels::BatchNormShape k = kernel_shape(s.inputs[0].shape);
  const float* gamma = s.params[0];
  const float* beta = s.params[1];
  float* running_mean = s.buffers[0];
  float* running_var = s.buffers[1];
  if (s.training) {
    kernels::batchnorm_forward_train(k, s.inputs[0].data, residual(s), gamma, beta, s.output.data,
                                     s.saved, running_mean, running_var, kMomentum, s.workspace,
                                     s.ex);
    ++*s.counters[0];
  } else {
    kernels::batchnorm_forward_eval(k, s.inputs[0].data, residual(s), gamma, beta, running_mean,
                                    running_var, s.output.data, s.workspace, s.ex);
  }
}

void BatchNorm2d::recompute_output(const LayerCall& s) const {
  kernels::batchnorm_forward_again(kernel_shape(s.inputs[0].shape), s.inputs[0].data, residual(s),
                                   s.saved, s.output.data, s.ex);
}

void BatchNorm2d::backward(const LayerCall& s) const {
  float* dresidual = fused_ == Fused::kAddReLU ? s.dinputs[1].data : nullptr;
  kernels::batchnorm_backward(kernel_shape(s.inputs[0].shape), s.inputs[0].data, s.output.data,
                              s.doutput.data, s.params[0], s.saved, s.dinputs[0].data, dresidual,
                              s.grads[0], s.grads[1], s.workspace, s.ex);
}

}  // namespace xtrain
