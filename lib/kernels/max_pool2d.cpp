#include "lib/kernels/max_pool2d.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "lib/kernels/bf16_pairs.h"
#include "lib/kernels/thread_scratch.h"
#include "lib/tensor/aligned_buffer.h"
#include "lib/tensor/bfloat16.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace xtrain::kernels {
namespace {

// Calls fn(offset of pixel (ih, iw) in an image) for each window position inside the image, in
// scan order.
template <typename Fn>
inline void for_each_window_pixel(const MaxPool2dShape& s, int oh, int ow, Fn&& fn) {
  for (int ky = 0; ky < s.kernel; ++ky) {
    const int ih = oh * s.stride - s.pad + ky;
    if (ih < 0 || ih >= s.h) continue;
    for (int kx = 0; kx < s.kernel; ++kx) {
      const int iw = ow * s.stride - s.pad + kx;
      if (iw < 0 || iw >= s.w) continue;
      fn(ih, iw);
    }
  }
}

// Channels handled at once: one AVX-512 vector.
constexpr int kChannelBlock = 16;

// One window's pixels, in scan order: where each sits in x's image and where its gradient is
// summed.
struct WindowPixels {
  int64_t x[kMaxPoolMaxKernel * kMaxPoolMaxKernel];
  int64_t dx[kMaxPoolMaxKernel * kMaxPoolMaxKernel];
  int count = 0;
};

// For `width` channels (width <= kChannelBlock) of one window: finds each channel's first maximum
// in x and adds grad to dx there. A later pixel wins only if strictly greater, as in the forward
// (ties go to the first).
template <typename T>
void scatter_to_argmax(const T* x, const WindowPixels& window, const float* grad, float* dx,
                       int width) {
  float best[kChannelBlock];
  int best_index[kChannelBlock];  // into the window's pixels
  for (int c = 0; c < width; ++c) {
    best[c] = value(x + window.x[0] + c);
    best_index[c] = 0;
  }
  for (int i = 1; i < window.count; ++i) {
    const T* in = x + window.x[i];
    for (int c = 0; c < width; ++c) {
      const float v = value(in + c);
      if (v > best[c]) {
        best[c] = v;
        best_index[c] = i;
      }
    }
  }
  for (int c = 0; c < width; ++c) dx[window.dx[best_index[c]] + c] += grad[c];
}

#if defined(__AVX512F__)
inline __m512 load_block(const float* p) { return _mm512_loadu_ps(p); }
// A bfloat16 is a float's upper half. (The masked forms, all lanes set, are the same instructions;
// GCC 12 warns that the unmasked forms' pass-through operand may be uninitialized.)
inline __m512 load_block(const BFloat16* p) {
  const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m512i widened = _mm512_maskz_cvtepu16_epi32(0xffff, bits);
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xffff, widened, 16));
}

// One window's maxima of a full block of channels at x (its image's block), kept in a register:
// vmaxps(in, best) is `in > best ? in : best`, as the scalar forward compares (masked form for
// GCC 12, as in load_block).
template <typename T>
inline __m512 window_max_block(const T* x, const WindowPixels& window) {
  __m512 best = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  for (int i = 0; i < window.count; ++i) {
    best = _mm512_maskz_max_ps(0xffff, load_block(x + window.x[i]), best);
  }
  return best;
}

// scatter_to_argmax for a full block, with the block's best values and indices kept in
// registers. _CMP_GT_OQ is C's `>` (false when either side is NaN), so the winners are the same.
template <typename T>
inline void scatter_to_argmax_block(const T* x, const WindowPixels& window, const float* grad,
                                    float* dx) {
  __m512 best = load_block(x + window.x[0]);
  __m512i best_index = _mm512_setzero_si512();
  for (int i = 1; i < window.count; ++i) {
    const __m512 in = load_block(x + window.x[i]);
    const __mmask16 wins = _mm512_cmp_ps_mask(in, best, _CMP_GT_OQ);
    best = _mm512_mask_blend_ps(wins, best, in);
    best_index = _mm512_mask_set1_epi32(best_index, wins, i);
  }
  const __m512 g = _mm512_loadu_ps(grad);
  for (int i = 0; i < window.count; ++i) {
    // Only the winning lanes are written: adding 0 elsewhere could turn a -0 into +0.
    const __mmask16 hit = _mm512_cmpeq_epi32_mask(best_index, _mm512_set1_epi32(i));
    float* out = dx + window.dx[i];
    _mm512_mask_storeu_ps(out, hit, _mm512_add_ps(_mm512_maskz_loadu_ps(hit, out), g));
  }
}

inline void store_block(float* out, __m512 v) { _mm512_storeu_ps(out, v); }
inline void store_block(BFloat16* out, __m512 v) {
#if defined(__AVX512BF16__)
  store_rounded(out, v);
#else
  alignas(64) float values[kChannelBlock];
  _mm512_store_ps(values, v);
  convert_to_bf16(values, kChannelBlock, reinterpret_cast<uint16_t*>(out));
#endif
}
#else
template <typename T>
inline void scatter_to_argmax_block(const T* x, const WindowPixels& window, const float* grad,
                                    float* dx) {
  scatter_to_argmax(x, window, grad, dx, kChannelBlock);
}
#endif

template <typename TX, typename TY>
void forward(const MaxPool2dShape& s, const TX* x, TY* y, const Exec& ex) {
  const int oh_count = s.out_h(), ow_count = s.out_w();
  const int64_t row_size = int64_t{s.w} * s.c;
  parallel_for(ex, int64_t{s.n} * oh_count, [&](int64_t b, int64_t e) {
    WindowPixels window;
    float best[kChannelBlock];
    for (int64_t row = b; row < e; ++row) {
      const int64_t n = row / oh_count;
      const int oh = static_cast<int>(row % oh_count);
      const TX* x_image = x + n * s.h * row_size;
      for (int ow = 0; ow < ow_count; ++ow) {
        TY* out = y + (row * ow_count + ow) * s.y_row();
        window.count = 0;
        for_each_window_pixel(s, oh, ow, [&](int ih, int iw) {
          window.x[window.count++] = ih * row_size + int64_t{iw} * s.c;
        });
        int c0 = 0;
#if defined(__AVX512F__)
        for (; c0 + kChannelBlock <= s.c; c0 += kChannelBlock) {
          store_block(out + c0, window_max_block(x_image + c0, window));
        }
#endif
        for (; c0 < s.c; c0 += kChannelBlock) {
          const int width = std::min(kChannelBlock, s.c - c0);
          std::fill_n(best, width, -std::numeric_limits<float>::infinity());
          for (int i = 0; i < window.count; ++i) {
            const TX* in = x_image + window.x[i] + c0;
            for (int c = 0; c < width; ++c) {
              const float v = value(in + c);
              best[c] = v > best[c] ? v : best[c];
            }
          }
          for (int c = 0; c < width; ++c) store(best[c], out + c0 + c);
        }
      }
    }
  });
}

// Where one image's dx rows are summed: dx itself (float32), or a ring of float32 rows that are
// rounded into a bfloat16 dx once no later window reaches them.
struct SumRows {
  float* base;
  int64_t row_size;
  int ring;  // rows in the ring; 0: base is dx's image

  int64_t offset(int ih) const { return (ring > 0 ? ih % ring : ih) * row_size; }
};

// Rows of a ring: the rows one window spans, or with a stride past the kernel, the rows no window
// reaches before the next window's (zeroed with them).
int ring_rows(const MaxPool2dShape& s) { return std::max(s.kernel, s.stride); }

template <typename TX, typename TDY, typename TDX>
void backward(const MaxPool2dShape& s, const TX* x, const TDY* dy, TDX* dx, const Exec& ex) {
  constexpr bool kRing = std::is_same_v<TDX, BFloat16>;
  const int oh_count = s.out_h(), ow_count = s.out_w();
  const int64_t row_size = int64_t{s.w} * s.c;  // elements in one image row of x and dx
  const int64_t ring_floats = kRing ? ring_rows(s) * row_size : 0;
  AlignedBuffer own;  // rings outside plans, or too large for the scratch slices
  float* rings = ex.scratch;
  size_t ring_stride = thread_scratch_floats();
  if (kRing && (rings == nullptr || static_cast<size_t>(ring_floats) > ring_stride)) {
    ring_stride = AlignedBuffer::round_up(ring_floats);
    own = AlignedBuffer::uninitialized(ex.num_threads() * ring_stride);
    rings = own.data();
  }
  // Windows overlap within an image but never across images, so threads own whole images and
  // each image is done in the same order whatever the thread count.
  parallel_for_chunks(ex, s.n, [&](int chunk, int64_t n0, int64_t n1) {
    WindowPixels window;
    float grad[kChannelBlock];
    for (int64_t n = n0; n < n1; ++n) {
      const TX* x_image = x + n * s.h * row_size;
      TDX* dx_image = dx + n * s.h * row_size;
      SumRows sums;
      if constexpr (kRing) {
        sums = {rings + chunk * ring_stride, row_size, ring_rows(s)};
      } else {
        sums = {dx_image, row_size, 0};
      }
      // Rows are zeroed just before the first window that reaches them, while in cache; ring rows
      // are rounded into dx once the windows have passed them.
      int zeroed_rows = 0, finished_rows = 0;
      auto zero_rows_to = [&](int end) {
        for (; zeroed_rows < end; ++zeroed_rows) {
          std::fill_n(sums.base + sums.offset(zeroed_rows), row_size, 0.0f);
        }
      };
      auto finish_rows_to = [&](int end) {
        if constexpr (kRing) {
          for (; finished_rows < end; ++finished_rows) {
            convert_to_bf16(sums.base + sums.offset(finished_rows), row_size,
                            reinterpret_cast<uint16_t*>(dx_image + finished_rows * row_size));
          }
        }
      };
      for (int oh = 0; oh < oh_count; ++oh) {
        zero_rows_to(std::min(s.h, oh * s.stride - s.pad + s.kernel));
        for (int ow = 0; ow < ow_count; ++ow) {
          const TDY* dy_pixel = dy + ((n * oh_count + oh) * ow_count + ow) * s.y_row();
          window.count = 0;
          for_each_window_pixel(s, oh, ow, [&](int ih, int iw) {
            window.x[window.count] = ih * row_size + int64_t{iw} * s.c;
            window.dx[window.count++] = sums.offset(ih) + int64_t{iw} * s.c;
          });
          if (window.count == 0) continue;  // the window lies entirely in the padding
          for (int c = 0; c < s.c; c += kChannelBlock) {
            const int width = std::min(kChannelBlock, s.c - c);
            const float* g = grad;  // bfloat16 dy as floats; float32 dy is read in place
            if constexpr (std::is_same_v<TDY, float>) {
              g = dy_pixel + c;
            } else {
              for (int i = 0; i < width; ++i) grad[i] = value(dy_pixel + c + i);
            }
            if (width == kChannelBlock) {
              scatter_to_argmax_block(x_image + c, window, g, sums.base + c);
            } else {
              scatter_to_argmax(x_image + c, window, g, sums.base + c, width);
            }
          }
        }
        finish_rows_to(std::min(zeroed_rows, (oh + 1) * s.stride - s.pad));
      }
      // Rows below the last window still get their zeros, one at a time (a ring holds no more).
      finish_rows_to(zeroed_rows);
      while (zeroed_rows < s.h) {
        zero_rows_to(zeroed_rows + 1);
        finish_rows_to(zeroed_rows);
      }
    }
  });
}

}  // namespace

void max_pool2d_forward(const MaxPool2dShape& s, ConstElements x, Elements y, const Exec& ex) {
  with_typed(x, [&](const auto* x_data) {
    with_typed(y, [&](auto* y_data) { forward(s, x_data, y_data, ex); });
  });
}

void max_pool2d_backward(const MaxPool2dShape& s, ConstElements x, ConstElements dy, Elements dx,
                         const Exec& ex) {
  with_typed(x, [&](const auto* x_data) {
    with_typed(dy, [&](const auto* dy_data) {
      with_typed(dx, [&](auto* dx_data) { backward(s, x_data, dy_data, dx_data, ex); });
    });
  });
}

}  // namespace xtrain::kernels
