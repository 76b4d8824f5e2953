#include "lib/kernels/reference/avg_pool2d.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace xtrain::kernels::reference {
namespace {

struct Window {
  int begin, end;  // inside the image
  int area_side;   // what the divisor counts along this axis
};

// torch's bins, computed independently of AvgPool2dShape's: adaptive_avg_pool2d's start_index /
// end_index (floor and ceil of o * in / out), avg_pool2d's padded window clipped to the image.
Window window(const AvgPool2dShape& s, int o, int in, int out) {
  if (s.kernel == 0) {
    const int begin = static_cast<int>(std::floor(double(o) * in / out));
    const int end = static_cast<int>(std::ceil(double(o + 1) * in / out));
    return {begin, end, end - begin};
  }
  const int begin = o * s.stride - s.pad;
  return {std::max(begin, 0), std::min(begin + s.kernel, in), s.kernel};
}

// Calls fn(y index, x index, divisor) for every (output element, input element of its bin).
template <typename Fn>
void for_each_pair(const AvgPool2dShape& s, Fn&& fn) {
  for (int n = 0; n < s.n; ++n)
    for (int oh = 0; oh < s.out_h; ++oh)
      for (int ow = 0; ow < s.out_w; ++ow) {
        const Window r = window(s, oh, s.h, s.out_h), q = window(s, ow, s.w, s.out_w);
        const auto divisor = static_cast<float>(r.area_side * q.area_side);
        for (int c = 0; c < s.c; ++c)
          for (int ih = r.begin; ih < r.end; ++ih)
            for (int iw = q.begin; iw < q.end; ++iw)
              fn(((int64_t{n} * s.out_h + oh) * s.out_w + ow) * s.c + c,
                 ((int64_t{n} * s.h + ih) * s.w + iw) * s.c + c, divisor);
      }
}

}  // namespace

void avg_pool2d_forward(const AvgPool2dShape& s, const float* x, float* y) {
  std::fill_n(y, int64_t{s.n} * s.out_h * s.out_w * s.c, 0.0f);
  for_each_pair(s, [&](int64_t yi, int64_t xi, float) { y[yi] += x[xi]; });
  for (int n = 0; n < s.n; ++n)
    for (int oh = 0; oh < s.out_h; ++oh)
      for (int ow = 0; ow < s.out_w; ++ow) {
        const Window r = window(s, oh, s.h, s.out_h), q = window(s, ow, s.w, s.out_w);
        for (int c = 0; c < s.c; ++c)
          y[((int64_t{n} * s.out_h + oh) * s.out_w + ow) * s.c + c] /=
              static_cast<float>(r.area_side * q.area_side);
      }
}

void avg_pool2d_backward(const AvgPool2dShape& s, const float* dy, float* dx) {
  std::fill_n(dx, int64_t{s.n} * s.h * s.w * s.c, 0.0f);
  for_each_pair(s, [&](int64_t yi, int64_t xi, float divisor) { dx[xi] += dy[yi] / divisor; });
}

}  // namespace xtrain::kernels::reference
