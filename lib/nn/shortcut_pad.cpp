#include "lib/nn/shortcut_pad.h"

#include "lib/nn/nhwc.h"

namespace xtrain {

ShortcutPad::ShortcutPad(std::string name, int out_channels, int stride)
    : Layer(std::move(name)), out_channels_(out_channels), stride_(stride) {}

kernels::ShortcutPadShape ShortcutPad::kernel_shape(const Shape& x) const {
  return {static_cast<int>(x[0]), static_cast<int>(x[1]), static_cast<int>(x[2]),
          static_cast<int>(x[3]), out_channels_,          stride_};
}

Shape ShortcutPad::output_shape(const std::vector<Shape>& inputs) const {
  check_nhwc(name(), inputs[0]);
  XTRAIN_CHECK(inputs[0][3] <= out_channels_, "ShortcutPad {}: {} channels do not fit in {}",
               name(), inputs[0][3], out_channels_);
  const kernels::ShortcutPadShape k = kernel_shape(inputs[0]);
  return Shape{k.n, k.out_h(), k.out_w(), out_channels_};
}

void ShortcutPad::forward(const LayerCall& s) const {
  kernels::shortcut_pad_forward(kernel_shape(s.inputs[0].shape), s.inputs[0].f32(), s.output.f32(),
                                s.ex);
}

void ShortcutPad::backward(const LayerCall& s) const {
  kernels::shortcut_pad_backward(kernel_shape(s.inputs[0].shape), s.doutput.f32(),
                                 s.dinputs[0].f32(), s.ex);
}

}  // namespace xtrain
