#include "lib/kernels/shortcut_pad.h"

#include <cstdint>
#include <cstring>

namespace xtrain::kernels {

void shortcut_pad_forward(const ShortcutPadShape& s, const float* x, float* y, const Exec& ex) {
  const int oh_count = s.out_h(), ow_count = s.out_w();
  parallel_for(ex, int64_t{s.n} * oh_count, [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int64_t n = row / oh_count, ih = (row % oh_count) * s.stride;
      for (int ow = 0; ow < ow_count; ++ow) {
        float* out = y + (row * ow_count + ow) * s.c_out;
        const float* in = x + ((n * s.h + ih) * s.w + int64_t{ow} * s.stride) * s.c_in;
        std::memset(out, 0, sizeof(float) * s.c_out);
        std::memcpy(out + s.pad_before(), in, sizeof(float) * s.c_in);
      }
    }
  });
}

void shortcut_pad_backward(const ShortcutPadShape& s, const float* dy, float* dx, const Exec& ex) {
  std::memset(dx, 0, sizeof(float) * s.n * s.h * s.w * s.c_in);
  const int oh_count = s.out_h(), ow_count = s.out_w();
  parallel_for(ex, int64_t{s.n} * oh_count, [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int64_t n = row / oh_count, ih = (row % oh_count) * s.stride;
      for (int ow = 0; ow < ow_count; ++ow) {
        const float* grad = dy + (row * ow_count + ow) * s.c_out;
        float* out = dx + ((n * s.h + ih) * s.w + int64_t{ow} * s.stride) * s.c_in;
        std::memcpy(out, grad + s.pad_before(), sizeof(float) * s.c_in);
      }
    }
  });
}

}  // namespace xtrain::kernels
