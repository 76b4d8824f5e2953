#include "lib/nn/global_avg_pool_flatten.h"

#include "lib/kernels/global_avg_pool.h"
#include "lib/nn/nhwc.h"

namespace xtrain {
namespace {

kernels::GlobalAvgPoolShape kernel_shape(const Shape& x) {
  return {static_cast<int>(x[0]), static_cast<int>(x[1] * x[2]), static_cast<int>(x[3])};
}

}  // namespace

Shape GlobalAvgPoolFlatten::output_shape(const std::vector<Shape>& inputs) const {
  check_nhwc(name(), inputs[0]);
  return Shape{inputs[0][0], inputs[0][3]};
}

void GlobalAvgPoolFlatten::forward(const LayerCall& s) const {
  kernels::global_avg_pool_forward(kernel_shape(s.inputs[0].shape), s.inputs[0].f32(),
                                   s.output.f32(), s.ex);
}

void GlobalAvgPoolFlatten::backward(const LayerCall& s) const {
  kernels::global_avg_pool_backward(kernel_shape(s.inputs[0].shape), s.doutput.f32(),
                                    s.dinputs[0].f32(), s.ex);
}

}  // namespace xtrain
