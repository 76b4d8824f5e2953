#include "lib/kernels/max_pool2d.h"

#include <cstring>
#include <limits>

namespace xtrain::kernels {
namespace {

constexpr int64_t kMinChannelChunk = 8;

// Calls fn(offset of x[n, ih, iw, 0]) for each window position inside the image, in scan order.
template <typename Fn>
inline void for_each_window_pixel(const MaxPool2dShape& s, int n, int oh, int ow, Fn&& fn) {
  for (int ky = 0; ky < s.kernel; ++ky) {
    const int ih = oh * s.stride - s.pad + ky;
    if (ih < 0 || ih >= s.h) continue;
    for (int kx = 0; kx < s.kernel; ++kx) {
      const int iw = ow * s.stride - s.pad + kx;
      if (iw < 0 || iw >= s.w) continue;
      fn(((int64_t{n} * s.h + ih) * s.w + iw) * s.c);
    }
  }
}

}  // namespace

void max_pool2d_forward(const MaxPool2dShape& s, const float* x, float* y, const Exec& ex) {
  const int oh_count = s.out_h(), ow_count = s.out_w();
  parallel_for(ex, int64_t{s.n} * oh_count, [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int n = static_cast<int>(row / oh_count), oh = static_cast<int>(row % oh_count);
      for (int ow = 0; ow < ow_count; ++ow) {
        float* out = y + (row * ow_count + ow) * s.c;
        for (int c = 0; c < s.c; ++c) out[c] = -std::numeric_limits<float>::infinity();
        for_each_window_pixel(s, n, oh, ow, [&](int64_t offset) {
          const float* in = x + offset;
          for (int c = 0; c < s.c; ++c) out[c] = in[c] > out[c] ? in[c] : out[c];
        });
      }
    }
  });
}

void max_pool2d_backward(const MaxPool2dShape& s, const float* x, const float* dy, float* dx,
                         const Exec& ex) {
  const int oh_count = s.out_h(), ow_count = s.out_w();
  std::memset(dx, 0, sizeof(float) * s.n * s.h * s.w * s.c);
  // Windows overlap, so threads own channel ranges rather than output rows.
  parallel_for(
      ex, s.c,
      [&](int64_t c0, int64_t c1) {
        for (int n = 0; n < s.n; ++n) {
          for (int oh = 0; oh < oh_count; ++oh) {
            for (int ow = 0; ow < ow_count; ++ow) {
              const float* grad = dy + ((int64_t{n} * oh_count + oh) * ow_count + ow) * s.c;
              for (int64_t c = c0; c < c1; ++c) {
                float best = -std::numeric_limits<float>::infinity();
                int64_t best_offset = -1;
                for_each_window_pixel(s, n, oh, ow, [&](int64_t offset) {
                  if (x[offset + c] > best || best_offset < 0) {
                    best = x[offset + c];
                    best_offset = offset;
                  }
                });
                if (best_offset >= 0) dx[best_offset + c] += grad[c];
              }
            }
          }
        }
      },
      kMinChannelChunk);
}

}  // namespace xtrain::kernels
