#include "lib/nn/relu.h"

#include "lib/kernels/relu.h"

namespace xtrain {
namespace {

// Rows of the output's channels, as far apart as the output's rows are (and dy_row, its
// gradient's).
kernels::ReLUShape kernel_shape(const TensorView& y, int64_t dy_row) {
  const int64_t c = y.shape[y.shape.rank() - 1];
  return {y.numel() / c, c, y.row_elements(), dy_row};
}

}  // namespace

void ReLU::forward(const LayerCall& s) const {
  kernels::relu_forward(kernel_shape(s.output, 0), s.inputs[0].f32(), s.output.f32(), s.ex);
}

void ReLU::backward(const LayerCall& s) const {
  kernels::relu_backward(kernel_shape(s.output, s.doutput.row_elements()), s.output.f32(),
                         s.doutput.f32(), s.dinputs[0].f32(), s.ex);
}

}  // namespace xtrain
