#include "lib/kernels/max_pool2d.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace xtrain::kernels {
namespace {

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

// Channels the backward handles at once: one AVX-512 vector.
constexpr int kChannelBlock = 16;

// For `width` channels (width <= kChannelBlock) of one window whose in-image pixels sit at
// x + offsets[0..count), in scan order: finds each channel's first maximum and adds grad to dx
// there. A later pixel wins only if strictly greater, as in the forward (ties go to the first).
void scatter_to_argmax(const float* x, const int64_t* offsets, int count, const float* grad,
                       float* dx, int width) {
  float best[kChannelBlock];
  int best_index[kChannelBlock];  // into offsets
  for (int c = 0; c < width; ++c) {
    best[c] = x[offsets[0] + c];
    best_index[c] = 0;
  }
  for (int i = 1; i < count; ++i) {
    const float* in = x + offsets[i];
    for (int c = 0; c < width; ++c) {
      if (in[c] > best[c]) {
        best[c] = in[c];
        best_index[c] = i;
      }
    }
  }
  for (int c = 0; c < width; ++c) dx[offsets[best_index[c]] + c] += grad[c];
}

#if defined(__AVX512F__)
// scatter_to_argmax for a full block, with the block's best values and indices kept in
// registers. _CMP_GT_OQ is C's `>` (false when either side is NaN), so the winners are the same.
inline void scatter_to_argmax_block(const float* x, const int64_t* offsets, int count,
                                    const float* grad, float* dx) {
  __m512 best = _mm512_loadu_ps(x + offsets[0]);
  __m512i best_index = _mm512_setzero_si512();
  for (int i = 1; i < count; ++i) {
    const __m512 in = _mm512_loadu_ps(x + offsets[i]);
    const __mmask16 wins = _mm512_cmp_ps_mask(in, best, _CMP_GT_OQ);
    best = _mm512_mask_blend_ps(wins, best, in);
    best_index = _mm512_mask_set1_epi32(best_index, wins, i);
  }
  const __m512 g = _mm512_loadu_ps(grad);
  for (int i = 0; i < count; ++i) {
    // Only the winning lanes are written: adding 0 elsewhere could turn a -0 into +0.
    const __mmask16 hit = _mm512_cmpeq_epi32_mask(best_index, _mm512_set1_epi32(i));
    float* out = dx + offsets[i];
    _mm512_mask_storeu_ps(out, hit, _mm512_add_ps(_mm512_maskz_loadu_ps(hit, out), g));
  }
}
#else
inline void scatter_to_argmax_block(const float* x, const int64_t* offsets, int count,
                                    const float* grad, float* dx) {
  scatter_to_argmax(x, offsets, count, grad, dx, kChannelBlock);
}
#endif

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
  const int64_t row_size = int64_t{s.w} * s.c;  // floats in one image row of x and dx
  // Windows overlap within an image but never across images, so threads own whole images and
  // each image is done in the same order whatever the thread count.
  parallel_for(ex, s.n, [&](int64_t n0, int64_t n1) {
    int64_t offsets[kMaxPoolMaxKernel * kMaxPoolMaxKernel];  // one window's pixels, scan order
    for (int64_t n = n0; n < n1; ++n) {
      const float* x_image = x + n * s.h * row_size;
      float* dx_image = dx + n * s.h * row_size;
      // Rows of dx are zeroed just before the first window that reaches them, while in cache.
      int zeroed_rows = 0;
      for (int oh = 0; oh < oh_count; ++oh) {
        const int ih_end = std::min(s.h, oh * s.stride - s.pad + s.kernel);
        if (ih_end > zeroed_rows) {
          std::memset(dx_image + zeroed_rows * row_size, 0,
                      sizeof(float) * (ih_end - zeroed_rows) * row_size);
          zeroed_rows = ih_end;
        }
        for (int ow = 0; ow < ow_count; ++ow) {
          const float* grad = dy + ((n * oh_count + oh) * ow_count + ow) * s.c;
          int count = 0;  // image 0: offsets relative to the image
          for_each_window_pixel(s, 0, oh, ow, [&](int64_t offset) { offsets[count++] = offset; });
          if (count == 0) continue;  // the window lies entirely in the padding
          int c = 0;
          for (; c + kChannelBlock <= s.c; c += kChannelBlock) {
            scatter_to_argmax_block(x_image + c, offsets, count, grad + c, dx_image + c);
          }
          if (c < s.c) {
            scatter_to_argmax(x_image + c, offsets, count, grad + c, dx_image + c, s.c - c);
          }
        }
      }
      // Rows no window reaches (stride larger than the kernel) still get their zeros.
      if (zeroed_rows < s.h) {
        std::memset(dx_image + zeroed_rows * row_size, 0,
                    sizeof(float) * (s.h - zeroed_rows) * row_size);
      }
    }
  });
}

}  // namespace xtrain::kernels
