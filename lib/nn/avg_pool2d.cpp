#include "lib/nn/avg_pool2d.h"

#include "lib/kernels/pool_size.h"
#include "lib/nn/nhwc.h"

namespace xtrain {

Shape AveragePooling::output_shape(const std::vector<Shape>& inputs) const {
  check_nhwc(name(), inputs[0]);
  const kernels::AvgPool2dShape k = kernel_shape(inputs[0]);
  XTRAIN_CHECK(k.out_h > 0 && k.out_w > 0, "{} {}: input {} is too small", type(), name(),
               inputs[0].str());
  return Shape{k.n, k.out_h, k.out_w, k.c};
}

void AveragePooling::forward(const LayerCall& s) const {
  kernels::avg_pool2d_forward(kernel_shape(s.inputs[0].shape), s.inputs[0].f32(), s.output.f32(),
                              s.ex);
}

void AveragePooling::backward(const LayerCall& s) const {
  if (s.dinputs[0].empty()) return;
  kernels::avg_pool2d_backward(kernel_shape(s.inputs[0].shape), s.doutput.f32(), s.dinputs[0].f32(),
                               s.ex);
}

AvgPool2d::AvgPool2d(std::string name, int kernel_size, int stride, int padding)
    : AveragePooling(std::move(name)),
      kernel_size_(kernel_size),
      stride_(stride),
      padding_(padding) {
  // torch's own limit: a window must see some of the image.
  XTRAIN_CHECK(kernel_size > 0 && stride > 0 && padding >= 0 && 2 * padding <= kernel_size,
               "AvgPool2d {}: invalid hyper-parameters", this->name());
}

kernels::AvgPool2dShape AvgPool2d::kernel_shape(const Shape& x) const {
  const int h = static_cast<int>(x[1]), w = static_cast<int>(x[2]);
  return {static_cast<int>(x[0]),
          h,
          w,
          static_cast<int>(x[3]),
          kernels::pooled_size(h, kernel_size_, stride_, padding_, /*ceil_mode=*/false),
          kernels::pooled_size(w, kernel_size_, stride_, padding_, /*ceil_mode=*/false),
          kernel_size_,
          stride_,
          padding_};
}

AdaptiveAvgPool2d::AdaptiveAvgPool2d(std::string name, int out_h, int out_w)
    : AveragePooling(std::move(name)), out_h_(out_h), out_w_(out_w) {
  XTRAIN_CHECK(out_h > 0 && out_w > 0, "AdaptiveAvgPool2d {}: invalid output size", this->name());
}

kernels::AvgPool2dShape AdaptiveAvgPool2d::kernel_shape(const Shape& x) const {
  return {static_cast<int>(x[0]),
          static_cast<int>(x[1]),
          static_cast<int>(x[2]),
          static_cast<int>(x[3]),
          out_h_,
          out_w_};
}

}  // namespace xtrain
