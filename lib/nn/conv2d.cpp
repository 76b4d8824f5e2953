#include "lib/nn/conv2d.h"

#include "lib/nn/nhwc.h"

namespace xtrain {

Conv2d::Conv2d(std::string name, int in_channels, int out_channels, ConvWindow window, bool bias,
               int groups, WeightInit init)
    : Layer(std::move(name)),
      in_channels_(in_channels),
      out_channels_(out_channels),
      window_(window),
      bias_(bias),
      groups_(groups),
      init_(init) {
  XTRAIN_CHECK(in_channels > 0 && out_channels > 0 && window.kernel_h > 0 && window.kernel_w > 0 &&
                   window.stride > 0 && window.pad_h >= 0 && window.pad_w >= 0 && groups > 0 &&
                   in_channels % groups == 0 && out_channels % groups == 0,
               "Conv2d {}: invalid hyper-parameters", this->name());
}

std::vector<ParamSpec> Conv2d::param_specs() const {
  const int kh = window_.kernel_h, kw = window_.kernel_w;
  const int group_in = in_channels_ / groups_;
  const int64_t fan_in = int64_t{group_in} * kh * kw, fan_out = int64_t{out_channels_} * kh * kw;
  std::vector<ParamSpec> specs = {
      weight_spec(init_, Shape{kh, kw, group_in, out_channels_}, fan_in, fan_out)};
  if (bias_) specs.push_back(bias_spec(init_, out_channels_, fan_in));
  return specs;
}

kernels::Conv2dShape Conv2d::kernel_shape(const Shape& x) const {
  return {static_cast<int>(x[0]),
          static_cast<int>(x[1]),
          static_cast<int>(x[2]),
          in_channels_,
          out_channels_,
          window_.kernel_h,
          window_.kernel_w,
          window_.stride,
          window_.pad_h,
          window_.pad_w,
          groups_};
}

Shape Conv2d::output_shape(const std::vector<Shape>& inputs) const {
  check_nhwc(name(), inputs[0], in_channels_);
  const kernels::Conv2dShape k = kernel_shape(inputs[0]);
  // The padded input must hold one whole window: out_h() alone would round a span of -1 (a 1x1
  // map under a 2x2 window of stride 2) up to one output row.
  const bool fits = k.h + 2 * k.pad_h >= k.kh && k.w + 2 * k.pad_w >= k.kw;
  XTRAIN_CHECK(fits && k.out_h() > 0 && k.out_w() > 0, "Conv2d {}: input {} is too small", name(),
               inputs[0].str());
  return Shape{k.n, k.out_h(), k.out_w(), out_channels_};
}

size_t Conv2d::workspace_floats(
    const std::vector<Shape>& inputs,
    const std::vector<std::optional<ElementType>>& gradient_types) const {
  return kernels::conv2d_workspace_floats(kernel_shape(inputs[0]), gradient_types[0]);
}

bool Conv2d::backward_adds(int slot, const std::vector<Shape>& inputs,
                           const std::vector<std::optional<ElementType>>& gradient_types) const {
  const std::optional<ElementType> dx_type = gradient_types[0];
  return dx_type && kernels::conv2d_backward_data_adds(kernel_shape(inputs[0]), *dx_type);
}

int64_t Conv2d::macs(const std::vector<Shape>& inputs) const {
  const kernels::Conv2dShape k = kernel_shape(inputs[0]);
  return k.rows() * k.patch() * k.c_out;
}

void Conv2d::forward(const LayerCall& s) const {
  const float* bias = bias_ ? s.params[1] : nullptr;
  kernels::conv2d_forward(kernel_shape(s.inputs[0].shape), s.inputs[0].elements(), s.params[0],
                          bias, s.output.elements(), s.workspace, s.ex, s.precision);
}

void Conv2d::backward(const LayerCall& s) const {
  const kernels::Conv2dShape k = kernel_shape(s.inputs[0].shape);
  if (!s.dinputs[0].empty()) {
    const bool add = !s.adds_to_dinputs.empty() && s.adds_to_dinputs[0];
    kernels::conv2d_backward_data(k, s.doutput.elements(), s.params[0], s.dinputs[0].elements(),
                                  s.workspace, s.ex, s.precision, add);
  }
  float* dbias = bias_ ? s.grads[1] : nullptr;
  kernels::conv2d_backward_weight(k, s.inputs[0].elements(), s.doutput.elements(), s.grads[0],
                                  dbias, s.workspace, s.ex, s.precision);
}

}  // namespace xtrain
