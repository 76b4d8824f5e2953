#include "lib/nn/channel_shuffle.h"

#include "lib/nn/nhwc.h"

namespace xtrain {
namespace {

kernels::ChannelShuffleShape kernel_shape(const Shape& y, int groups) {
  return {y[0] * y[1] * y[2], static_cast<int>(y[3]), groups};
}

}  // namespace

ChannelShuffle::ChannelShuffle(std::string name, int groups)
    : Layer(std::move(name)), groups_(groups) {
  XTRAIN_CHECK(groups > 0, "ChannelShuffle {}: groups must be > 0, got {}", this->name(), groups);
}

Shape ChannelShuffle::output_shape(const std::vector<Shape>& inputs) const {
  XTRAIN_CHECK(!inputs.empty(), "ChannelShuffle {}: no inputs", name());
  int64_t channels = 0;
  for (const Shape& x : inputs) {
    check_nhwc(name(), x);
    XTRAIN_CHECK(x[0] == inputs[0][0] && x[1] == inputs[0][1] && x[2] == inputs[0][2],
                 "ChannelShuffle {}: inputs {} and {} differ in batch or grid", name(),
                 inputs[0].str(), x.str());
    channels += x[3];
  }
  XTRAIN_CHECK(channels % groups_ == 0,
               "ChannelShuffle {}: {} channels do not split into {} groups", name(), channels,
               groups_);
  return Shape{inputs[0][0], inputs[0][1], inputs[0][2], channels};
}

void ChannelShuffle::forward(const LayerCall& s) const {
  const kernels::ChannelShuffleShape k = kernel_shape(s.output.shape, groups_);
  int first = 0;
  for (const TensorView& x : s.inputs) {
    const int width = static_cast<int>(x.shape[3]);
    kernels::channel_shuffle_forward(k, first, width, x.f32(), s.output.f32(), s.ex);
    first += width;
  }
}

void ChannelShuffle::backward(const LayerCall& s) const {
  const kernels::ChannelShuffleShape k = kernel_shape(s.doutput.shape, groups_);
  int first = 0;
  for (size_t i = 0; i < s.inputs.size(); ++i) {
    const int width = static_cast<int>(s.inputs[i].shape[3]);
    const TensorView& dx = s.dinputs[i];
    if (!dx.empty()) {
      kernels::channel_shuffle_backward(k, first, width, s.doutput.f32(), dx.f32(), s.ex);
    }
    first += width;
  }
}

}  // namespace xtrain
