#include "lib/kernels/channel_scale.h"

#include <algorithm>
#include <type_traits>

#include "lib/base/check.h"

namespace xtrain::kernels {
namespace {

constexpr int64_t kMinRowChunk = 64;
// The backward works on blocks of an image's channels (threads split the blocks of all images),
// each summing its dscale over the image's pixels in double on the stack: contiguous loads of a
// block of a row, and work for every thread even for one image.
constexpr int kChannelBlock = 64;

template <typename X, typename Y>
void forward(const ChannelScaleShape& s, const X* x, const float* scale, Y* y, const Exec& ex) {
  parallel_for(
      ex, int64_t{s.n} * s.hw,
      [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const float* sc = scale + (r / s.hw) * s.c;
          const X* xr = x + r * s.c;
          Y* yr = y + r * s.c;
          for (int c = 0; c < s.c; ++c) store(value(xr + c) * sc[c], yr + c);
        }
      },
      kMinRowChunk);
}

template <typename X, typename Y>
void backward(const ChannelScaleShape& s, const X* x, const float* scale, const Y* dy, X* dx,
              float* dscale, const Exec& ex) {
  const int blocks = (s.c + kChannelBlock - 1) / kChannelBlock;
  parallel_for(ex, int64_t{s.n} * blocks, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t image = t / blocks;
      const int c0 = static_cast<int>(t % blocks) * kChannelBlock;
      const int width = std::min(kChannelBlock, s.c - c0);
      const float* sc = scale + image * s.c + c0;
      double sums[kChannelBlock] = {};
      for (int64_t p = 0; p < s.hw; ++p) {
        const int64_t at = (image * s.hw + p) * s.c + c0;
        const X* xr = x + at;
        const Y* dyr = dy + at;
        if (dscale != nullptr) {
          for (int c = 0; c < width; ++c) sums[c] += double{value(dyr + c) * value(xr + c)};
        }
        if (dx != nullptr) {
          X* dxr = dx + at;
          for (int c = 0; c < width; ++c) store(value(dyr + c) * sc[c], dxr + c);
        }
      }
      if (dscale == nullptr) continue;
      float* ds = dscale + image * s.c + c0;
      for (int c = 0; c < width; ++c) ds[c] = static_cast<float>(sums[c]);
    }
  });
}

}  // namespace

void channel_scale_forward(const ChannelScaleShape& s, ConstElements x, const float* scale,
                           Elements y, const Exec& ex) {
  with_typed(
      x, [&](const auto* xt) { with_typed(y, [&](auto* yt) { forward(s, xt, scale, yt, ex); }); });
}

void channel_scale_backward(const ChannelScaleShape& s, ConstElements x, const float* scale,
                            ConstElements dy, Elements dx, float* dscale, const Exec& ex) {
  XTRAIN_CHECK(dx.data == nullptr || dx.type == x.type,
               "channel_scale_backward: dx's element type differs from x's");
  with_typed(x, [&](const auto* xt) {
    using X = std::remove_const_t<std::remove_pointer_t<decltype(xt)>>;
    with_typed(dy, [&](const auto* dyt) {
      backward(s, xt, scale, dyt, static_cast<X*>(dx.data), dscale, ex);
    });
  });
}

}  // namespace xtrain::kernels
