#include "lib/nn/max_pool2d.h"

#include "lib/nn/nhwc.h"

namespace xtrain {

MaxPool2d::MaxPool2d(std::string name, int kernel_size, int stride, int padding, bool ceil_mode)
    : Layer(std::move(name)),
      kernel_size_(kernel_size),
      stride_(stride),
      padding_(padding),
      ceil_mode_(ceil_mode) {
  XTRAIN_CHECK(kernel_size > 0 && kernel_size <= kernels::kMaxPoolMaxKernel && stride > 0 &&
                   padding >= 0 && 2 * padding <= kernel_size,
               "MaxPool2d {}: invalid hyper-parameters", this->name());
}

kernels::MaxPool2dShape MaxPool2d::kernel_shape(const Shape& x, int64_t y_row) const {
  return {static_cast<int>(x[0]),
          static_cast<int>(x[1]),
          static_cast<int>(x[2]),
          static_cast<int>(x[3]),
          kernel_size_,
          stride_,
          padding_,
          ceil_mode_,
          y_row};
}

Shape MaxPool2d::output_shape(const std::vector<Shape>& inputs) const {
  check_nhwc(name(), inputs[0]);
  const kernels::MaxPool2dShape k = kernel_shape(inputs[0], inputs[0][3]);
  XTRAIN_CHECK(k.out_h() > 0 && k.out_w() > 0, "MaxPool2d {}: input {} is too small", name(),
               inputs[0].str());
  return Shape{k.n, k.out_h(), k.out_w(), k.c};
}

void MaxPool2d::forward(const LayerCall& s) const {
  kernels::max_pool2d_forward(kernel_shape(s.inputs[0].shape, s.output.row_elements()),
                              s.inputs[0].elements(), s.output.elements(), s.ex);
}

void MaxPool2d::backward(const LayerCall& s) const {
  kernels::max_pool2d_backward(kernel_shape(s.inputs[0].shape, s.doutput.row_elements()),
                               s.inputs[0].elements(), s.doutput.elements(),
                               s.dinputs[0].elements(), s.ex);
}

}  // namespace xtrain
