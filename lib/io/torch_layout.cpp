#include "lib/io/torch_layout.h"

#include <algorithm>
#include <cstring>

namespace xtrain {
namespace {

// Walks a conv weight once: f(ours index, PyTorch index) for every element (a PointwiseLinear's
// too: with KH = KW = 1, OIHW's order is Linear's [out, in]).
template <typename F>
void for_each_conv_element(const Shape& ours, F f) {
  const int64_t kh = ours[0], kw = ours[1], c_in = ours[2], c_out = ours[3];
  for (int64_t y = 0; y < kh; ++y) {
    for (int64_t x = 0; x < kw; ++x) {
      for (int64_t i = 0; i < c_in; ++i) {
        for (int64_t o = 0; o < c_out; ++o) {
          f(((y * kw + x) * c_in + i) * c_out + o, ((o * c_in + i) * kh + y) * kw + x);
        }
      }
    }
  }
}

}  // namespace

TorchLayout torch_layout(const Layer& layer, const ParamSpec& spec) {
  if (spec.name != "weight") return TorchLayout::kSame;
  if (std::strcmp(layer.type(), "Conv2d") == 0) return TorchLayout::kConvOIHW;
  // A Linear whose weight is stored as a 1x1 convolution's: a PointwiseLinear.
  const bool pointwise = std::strcmp(layer.type(), "Linear") == 0 && spec.shape.rank() == 4;
  return pointwise ? TorchLayout::kPointwiseLinear : TorchLayout::kSame;
}

std::vector<int64_t> torch_shape(TorchLayout layout, const Shape& ours) {
  if (layout == TorchLayout::kSame) return ours.dims();
  if (layout == TorchLayout::kPointwiseLinear) return {ours[3], ours[2]};
  return {ours[3], ours[2], ours[0], ours[1]};
}

void to_torch(TorchLayout layout, const Shape& ours, const float* src, float* dst) {
  if (layout == TorchLayout::kSame) {
    std::copy_n(src, ours.numel(), dst);
  } else {
    for_each_conv_element(ours, [&](int64_t here, int64_t torch) { dst[torch] = src[here]; });
  }
}

void from_torch(TorchLayout layout, const Shape& ours, const float* src, float* dst) {
  if (layout == TorchLayout::kSame) {
    std::copy_n(src, ours.numel(), dst);
  } else {
    for_each_conv_element(ours, [&](int64_t here, int64_t torch) { dst[here] = src[torch]; });
  }
}

}  // namespace xtrain
