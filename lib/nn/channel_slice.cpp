#include "lib/nn/channel_slice.h"

#include "lib/kernels/copy_columns.h"
#include "lib/nn/nhwc.h"

namespace xtrain {
namespace {

int64_t pixels(const Shape& x) { return x[0] * x[1] * x[2]; }

}  // namespace

ChannelSlice::ChannelSlice(std::string name, int start, int width)
    : Layer(std::move(name)), start_(start), width_(width) {
  XTRAIN_CHECK(start >= 0 && width > 0, "ChannelSlice {}: bad columns [{}, {} + {})", this->name(),
               start, start, width);
}

Shape ChannelSlice::output_shape(const std::vector<Shape>& inputs) const {
  check_nhwc(name(), inputs[0]);
  XTRAIN_CHECK(start_ + width_ <= inputs[0][3], "ChannelSlice {}: columns [{}, {}) of {} channels",
               name(), start_, start_ + width_, inputs[0][3]);
  return Shape{inputs[0][0], inputs[0][1], inputs[0][2], width_};
}

void ChannelSlice::forward(const LayerCall& s) const {
  const TensorView& x = s.inputs[0];
  kernels::copy_columns(pixels(x.shape),
                        {x.f32(), x.row_elements(), start_, s.output.f32(), width_, 0, width_},
                        s.ex);
}

void ChannelSlice::backward(const LayerCall& s) const {
  const TensorView& dx = s.dinputs[0];
  if (dx.empty()) return;
  kernels::copy_columns_zero_others(
      pixels(dx.shape), {s.doutput.f32(), width_, 0, dx.f32(), dx.row_elements(), start_, width_},
      s.ex);
}

}  // namespace xtrain
