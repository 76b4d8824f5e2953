#include "lib/nn/adaptive_avg_pool2d.h"

#include "lib/kernels/global_avg_pool.h"
#include "lib/nn/nhwc.h"

namespace xtrain {
namespace {

kernels::GlobalAvgPoolShape kernel_shape(const Shape& x) {
  return {static_cast<int>(x[0]), static_cast<int>(x[1] * x[2]), static_cast<int>(x[3])};
}

}  // namespace

Shape AdaptiveAvgPool2d::output_shape(const std::vector<Shape>& inputs) const {
  check_nhwc(name(), inputs[0]);
  return Shape{inputs[0][0], inputs[0][3]};
}

void AdaptiveAvgPool2d::forward(const LayerCall& s) const {
  kernels::global_avg_pool_forward(kernel_shape(s.inputs[0].shape), s.inputs[0].data, s.output.data,
                                   s.ex);
}

void AdaptiveAvgPool2d::backward(const LayerCall& s) const {
  kernels::global_avg_pool_backward(kernel_shape(s.inputs[0].shape), s.doutput.data,
                                    s.dinputs[0].data, s.ex);
}

}  // namespace xtrain
