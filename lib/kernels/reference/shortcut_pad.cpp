#include "lib/kernels/reference/shortcut_pad.h"

#include <cstdint>

namespace xtrain::kernels::reference {
namespace {

// Calls fn(x index, y index) for every output element, x index -1 for the zero-padded channels.
template <typename Fn>
void for_each_output(const ShortcutPadShape& s, Fn&& fn) {
  for (int n = 0; n < s.n; ++n)
    for (int oh = 0; oh < s.out_h(); ++oh)
      for (int ow = 0; ow < s.out_w(); ++ow)
        for (int co = 0; co < s.c_out; ++co) {
          const int ci = co - s.pad_before();
          const int64_t xi =
              ci < 0 || ci >= s.c_in
                  ? -1
                  : ((int64_t{n} * s.h + oh * s.stride) * s.w + ow * s.stride) * s.c_in + ci;
          fn(xi, ((int64_t{n} * s.out_h() + oh) * s.out_w() + ow) * s.c_out + co);
        }
}

}  // namespace

void shortcut_pad_forward(const ShortcutPadShape& s, const float* x, float* y) {
  for_each_output(s, [&](int64_t xi, int64_t yi) { y[yi] = xi < 0 ? 0.0f : x[xi]; });
}

void shortcut_pad_backward(const ShortcutPadShape& s, const float* dy, float* dx) {
  for (int64_t i = 0; i < int64_t{s.n} * s.h * s.w * s.c_in; ++i) dx[i] = 0.0f;
  for_each_output(s, [&](int64_t xi, int64_t yi) {
    if (xi >= 0) dx[xi] += dy[yi];
  });
}

}  // namespace xtrain::kernels::reference
