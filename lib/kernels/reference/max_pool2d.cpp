#include "lib/kernels/reference/max_pool2d.h"

#include <cstdint>
#include <limits>

namespace xtrain::kernels::reference {
namespace {

// Calls fn(y index, index of the window's first maximum in x) for every output element.
template <typename Fn>
void for_each_argmax(const MaxPool2dShape& s, const float* x, Fn&& fn) {
  for (int n = 0; n < s.n; ++n)
    for (int oh = 0; oh < s.out_h(); ++oh)
      for (int ow = 0; ow < s.out_w(); ++ow)
        for (int c = 0; c < s.c; ++c) {
          int64_t best = -1;
          for (int ky = 0; ky < s.kernel; ++ky)
            for (int kx = 0; kx < s.kernel; ++kx) {
              const int ih = oh * s.stride - s.pad + ky, iw = ow * s.stride - s.pad + kx;
              if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) continue;
              const int64_t i = ((int64_t{n} * s.h + ih) * s.w + iw) * s.c + c;
              if (best < 0 || x[i] > x[best]) best = i;
            }
          fn(((int64_t{n} * s.out_h() + oh) * s.out_w() + ow) * s.c + c, best);
        }
}

}  // namespace

void max_pool2d_forward(const MaxPool2dShape& s, const float* x, float* y) {
  for_each_argmax(s, x, [&](int64_t yi, int64_t xi) {
    y[yi] = xi < 0 ? -std::numeric_limits<float>::infinity() : x[xi];
  });
}

void max_pool2d_backward(const MaxPool2dShape& s, const float* x, const float* dy, float* dx) {
  for (int64_t i = 0; i < int64_t{s.n} * s.h * s.w * s.c; ++i) dx[i] = 0.0f;
  for_each_argmax(s, x, [&](int64_t yi, int64_t xi) {
    if (xi >= 0) dx[xi] += dy[yi];
  });
}

}  // namespace xtrain::kernels::reference
