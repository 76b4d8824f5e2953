#include "lib/nn/batchnorm2d.h"

#include <algorithm>

#include "lib/base/check.h"
#include "lib/nn/nhwc.h"

namespace xtrain {

BatchNorm2d::BatchNorm2d(std::string name, int num_features, Fused fused, float eps, float momentum)
    : Layer(std::move(name)),
      num_features_(num_features),
      fused_(fused),
      eps_(eps),
      momentum_(momentum) {
  XTRAIN_CHECK(eps > 0.0f, "BatchNorm2d {}: eps must be positive", this->name());
  XTRAIN_CHECK(momentum >= 0.0f && momentum <= 1.0f, "BatchNorm2d {}: momentum must be in [0, 1]",
               this->name());
}

const char* BatchNorm2d::type() const {
  switch (fused_) {
    case Fused::kNothing:
      return "BatchNorm2d";
    case Fused::kReLU:
      return "BatchNorm2d+ReLU";
    case Fused::kReLU6:
      return "BatchNorm2d+ReLU6";
    case Fused::kHardswish:
      return "BatchNorm2d+Hardswish";
    case Fused::kSiLU:
      return "BatchNorm2d+SiLU";
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

namespace {

const Shape& shape_of(const Shape& x) { return x; }
const Shape& shape_of(const TensorView& x) { return x.shape; }

}  // namespace

template <typename Inputs, typename Fn>
void BatchNorm2d::for_each_part(const Inputs& inputs, int64_t y_row, Fn&& fn) const {
  const size_t parts = fused_ == Fused::kAddReLU ? 1 : inputs.size();
  int first = 0;
  for (size_t i = 0; i < parts; ++i) {
    const Shape& x = shape_of(inputs[i]);
    const int channels = static_cast<int>(x[3]);
    fn(static_cast<int>(i),
       kernels::BatchNormShape{x[0] * x[1] * x[2], channels, eps_, activation(), y_row}, first);
    first += channels;
  }
}

kernels::Activation BatchNorm2d::activation() const {
  switch (fused_) {
    case Fused::kNothing:
      return kernels::Activation::kNone;
    case Fused::kReLU:
    case Fused::kAddReLU:
      return kernels::Activation::kReLU;
    case Fused::kReLU6:
      return kernels::Activation::kReLU6;
    case Fused::kHardswish:
      return kernels::Activation::kHardswish;
    case Fused::kSiLU:
      return kernels::Activation::kSiLU;
  }
  return kernels::Activation::kNone;
}

ConstElements BatchNorm2d::residual(const LayerCall& s) const {
  if (fused_ == Fused::kAddReLU) return s.inputs[1].elements();
  return nullptr;
}

Shape BatchNorm2d::output_shape(const std::vector<Shape>& inputs) const {
  XTRAIN_CHECK(!inputs.empty(), "BatchNorm2d {}: no input", name());
  if (fused_ == Fused::kAddReLU) {
    check_nhwc(name(), inputs[0], num_features_);
    XTRAIN_CHECK(inputs.size() == 2, "BatchNorm2d {}: expected 2 inputs, got {}", name(),
                 inputs.size());
    XTRAIN_CHECK(inputs[1] == inputs[0],
                 "BatchNorm2d {}: the residual {} differs from the input {}", name(),
                 inputs[1].str(), inputs[0].str());
    return inputs[0];
  }
  int64_t channels = 0;
  for (const Shape& x : inputs) {
    check_nhwc(name(), x);
    XTRAIN_CHECK(x[0] == inputs[0][0] && x[1] == inputs[0][1] && x[2] == inputs[0][2],
                 "BatchNorm2d {}: inputs {} and {} differ in batch or grid", name(),
                 inputs[0].str(), x.str());
    channels += x[3];
  }
  XTRAIN_CHECK(channels == num_features_, "BatchNorm2d {}: expected {} channels, got {}", name(),
               num_features_, channels);
  return Shape{inputs[0][0], inputs[0][1], inputs[0][2], channels};
}

size_t BatchNorm2d::workspace_floats(
    const std::vector<Shape>& inputs,
    const std::vector<std::optional<ElementType>>& gradient_types) const {
  size_t floats = 0;
  for_each_part(inputs, num_features_, [&](int, const kernels::BatchNormShape& k, int) {
    floats = std::max(floats, kernels::batchnorm_workspace_floats(k));
  });
  return floats;
}

size_t BatchNorm2d::saved_floats(const std::vector<Shape>& inputs) const {
  return kernels::kBatchNormSavedRows * static_cast<size_t>(num_features_);
}

// Each part's saved values are its channels' [4, c] block, at 4 x its first channel.
void BatchNorm2d::forward(const LayerCall& s) const {
  const float* gamma = s.params[0];
  const float* beta = s.params[1];
  float* running_mean = s.buffers[0];
  float* running_var = s.buffers[1];
  for_each_part(
      s.inputs, s.output.row_elements(), [&](int i, const kernels::BatchNormShape& k, int first) {
        if (s.training) {
          kernels::batchnorm_forward_train(
              k, s.inputs[i].elements(), residual(s), gamma + first, beta + first,
              s.output.elements().at(first), s.saved + kernels::kBatchNormSavedRows * first,
              running_mean + first, running_var + first, momentum_, s.workspace, s.ex);
        } else {
          kernels::batchnorm_forward_eval(k, s.inputs[i].elements(), residual(s), gamma + first,
                                          beta + first, running_mean + first, running_var + first,
                                          s.output.elements().at(first), s.workspace, s.ex);
        }
      });
  if (s.training) ++*s.counters[0];
}

void BatchNorm2d::recompute_output(const LayerCall& s) const {
  for_each_part(s.inputs, s.output.row_elements(),
                [&](int i, const kernels::BatchNormShape& k, int first) {
                  kernels::batchnorm_forward_again(k, s.inputs[i].elements(), residual(s),
                                                   s.saved + kernels::kBatchNormSavedRows * first,
                                                   s.output.elements().at(first), s.ex);
                });
}

void BatchNorm2d::backward(const LayerCall& s) const {
  const bool added = fused_ == Fused::kAddReLU;
  const Elements dresidual = added ? s.dinputs[1].elements() : nullptr;
  for_each_part(
      s.inputs, s.output.row_elements(), [&](int i, kernels::BatchNormShape k, int first) {
        k.dy_stride = s.doutput.row_elements();
        // The ReLU's mask: from the output after a residual, else from the input (see
        // backward_reads_output), as the other activations' derivatives.
        const ConstElements y = added ? s.output.elements().at(first) : nullptr;
        kernels::batchnorm_backward(
            k, s.inputs[i].elements(), y, s.doutput.elements().at(first), s.params[0] + first,
            s.saved + kernels::kBatchNormSavedRows * first, s.dinputs[i].elements(), dresidual,
            s.grads[0] + first, s.grads[1] + first, s.workspace, s.ex);
      });
}

}  // namespace xtrain
