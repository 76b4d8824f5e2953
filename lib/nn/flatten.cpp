#include "lib/nn/flatten.h"

#include "lib/kernels/transpose.h"
#include "lib/nn/nhwc.h"

namespace xtrain {

Flatten::Flatten(std::string name, int height, int width)
    : Layer(std::move(name)), height_(height), width_(width) {
  XTRAIN_CHECK(height > 0 && width > 0, "Flatten {}: invalid size {}x{}", this->name(), height,
               width);
}

Shape Flatten::output_shape(const std::vector<Shape>& inputs) const {
  const Shape& x = inputs[0];
  check_nhwc(name(), x);
  XTRAIN_CHECK(x[1] == height_ && x[2] == width_, "Flatten {}: expected {}x{} features, got {}",
               name(), height_, width_, x.str());
  return Shape{x[0], x[1] * x[2] * x[3]};
}

// Per image, the [H * W, C] matrix of NHWC becomes PyTorch's [C, H * W].
void Flatten::forward(const LayerCall& s) const {
  const Shape& x = s.inputs[0].shape;
  kernels::transpose_batch(x[0], x[1] * x[2], x[3], s.inputs[0].f32(), s.output.f32(), s.ex);
}

void Flatten::backward(const LayerCall& s) const {
  const Shape& x = s.inputs[0].shape;
  kernels::transpose_batch(x[0], x[3], x[1] * x[2], s.doutput.f32(), s.dinputs[0].f32(), s.ex);
}

}  // namespace xtrain
