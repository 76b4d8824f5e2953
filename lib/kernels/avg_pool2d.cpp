#include "lib/kernels/avg_pool2d.h"

#include <cstdint>
#include <cstring>

namespace xtrain::kernels {

void avg_pool2d_forward(const AvgPool2dShape& s, const float* x, float* y, const Exec& ex) {
  parallel_for(ex, int64_t{s.n} * s.out_h, [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int n = static_cast<int>(row / s.out_h);
      const AvgPool2dShape::Bin rows = s.row_bin(static_cast<int>(row % s.out_h));
      for (int ow = 0; ow < s.out_w; ++ow) {
        const AvgPool2dShape::Bin cols = s.col_bin(ow);
        float* out = y + (row * s.out_w + ow) * s.c;
        std::memset(out, 0, sizeof(float) * s.c);
        for (int ih = rows.begin; ih < rows.end; ++ih) {
          for (int iw = cols.begin; iw < cols.end; ++iw) {
            const float* in = x + ((int64_t{n} * s.h + ih) * s.w + iw) * s.c;
            for (int c = 0; c < s.c; ++c) out[c] += in[c];
          }
        }
        const float divisor = s.divisor(rows, cols);
        for (int c = 0; c < s.c; ++c) out[c] /= divisor;
      }
    }
  });
}

void avg_pool2d_backward(const AvgPool2dShape& s, const float* dy, float* dx, const Exec& ex) {
  const int64_t image = int64_t{s.h} * s.w * s.c;
  // Bins overlap within an image, never across images: threads own whole images, so every
  // element is summed in the same order whatever the thread count.
  parallel_for(ex, s.n, [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
      float* dx_image = dx + n * image;
      std::memset(dx_image, 0, sizeof(float) * image);
      for (int oh = 0; oh < s.out_h; ++oh) {
        const AvgPool2dShape::Bin rows = s.row_bin(oh);
        for (int ow = 0; ow < s.out_w; ++ow) {
          const AvgPool2dShape::Bin cols = s.col_bin(ow);
          const float divisor = s.divisor(rows, cols);
          const float* grad = dy + ((n * s.out_h + oh) * s.out_w + ow) * s.c;
          for (int ih = rows.begin; ih < rows.end; ++ih) {
            for (int iw = cols.begin; iw < cols.end; ++iw) {
              float* out = dx_image + (int64_t{ih} * s.w + iw) * s.c;
              for (int c = 0; c < s.c; ++c) out[c] += grad[c] / divisor;
            }
          }
        }
      }
    }
  });
}

}  // namespace xtrain::kernels
