#include "lib/kernels/conv2d_gemm.h"

#include <algorithm>
#include <cstring>

#include "lib/kernels/bf16_pairs.h"
#include "lib/kernels/gemm.h"
#include "lib/tensor/aligned_buffer.h"

namespace xtrain::kernels {
namespace {

// The im2col buffer holds a tile of output rows at a time, so it stays a few MB whatever the
// batch, where a whole batch's im2col of an early 3x3 layer would take hundreds.
constexpr int64_t kWorkspaceBudgetFloats = int64_t{1} << 20;
constexpr int64_t kMinTileRows = 64;
// Channels per chunk when threads split col2im by channel.
constexpr int64_t kMinChannelChunk = 8;

int64_t tile_rows(const Conv2dShape& s) {
  return std::min(s.rows(), std::max(kMinTileRows, kWorkspaceBudgetFloats / s.patch()));
}

// Calls fn(n, ih, iw, tap) for each of the kh*kw taps of output row r; ih or iw may fall in the
// padding (outside [0, h) x [0, w)).
template <typename Fn>
inline void for_each_tap(const Conv2dShape& s, int64_t r, Fn&& fn) {
  const int64_t ohw = int64_t{s.out_h()} * s.out_w();
  const int n = static_cast<int>(r / ohw);
  const int oh = static_cast<int>(r % ohw) / s.out_w();
  const int ow = static_cast<int>(r % ohw) % s.out_w();
  for (int ky = 0; ky < s.kh; ++ky) {
    for (int kx = 0; kx < s.kw; ++kx) {
      fn(n, oh * s.stride - s.pad_h + ky, ow * s.stride - s.pad_w + kx, ky * s.kw + kx);
    }
  }
}

bool inside(const Conv2dShape& s, int ih, int iw) {
  return ih >= 0 && ih < s.h && iw >= 0 && iw < s.w;
}

// Offset of x[n, ih, iw, c] in an input-shaped tensor.
int64_t pixel_offset(const Conv2dShape& s, int n, int ih, int iw, int c) {
  return ((int64_t{n} * s.h + ih) * s.w + iw) * s.c_in + c;
}

// dst[i] = src[i] for i < n, as float32.
void copy_as_float(const float* src, int n, float* dst) {
  std::memcpy(dst, src, sizeof(float) * n);
}
void copy_as_float(const BFloat16* src, int n, float* dst) {
  for (int i = 0; i < n; ++i) dst[i] = to_float(src[i]);
}

// col[r - r0, :] = group g's receptive field of output row r, in weight order (ky, kx, its
// input channels), as float32.
template <typename T>
void im2col(const Conv2dShape& s, const T* x, int g, int64_t r0, int64_t r1, float* col,
            const Exec& ex) {
  const int channels = s.group_in(), first = g * channels;
  parallel_for(
      ex, r1 - r0,
      [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          float* row = col + i * s.patch();
          for_each_tap(s, r0 + i, [&](int n, int ih, int iw, int tap) {
            float* dst = row + int64_t{tap} * channels;
            if (inside(s, ih, iw)) {
              copy_as_float(x + pixel_offset(s, n, ih, iw, first), channels, dst);
            } else {
              std::memset(dst, 0, sizeof(float) * channels);
            }
          });
        }
      },
      16);
}

// dx += col2im(dcol) for group g's input channels and output rows [r0, r1). Threads own channel
// ranges, so overlapping receptive fields never race and every dx element is summed in row order.
void col2im_add(const Conv2dShape& s, const float* dcol, int g, int64_t r0, int64_t r1, float* dx,
                const Exec& ex) {
  const int channels = s.group_in(), first = g * channels;
  parallel_for(
      ex, channels,
      [&](int64_t c0, int64_t c1) {
        for (int64_t r = r0; r < r1; ++r) {
          const float* row = dcol + (r - r0) * s.patch();
          for_each_tap(s, r, [&](int n, int ih, int iw, int tap) {
            if (!inside(s, ih, iw)) return;
            float* dst = dx + pixel_offset(s, n, ih, iw, first);
            const float* src = row + int64_t{tap} * channels;
            for (int64_t c = c0; c < c1; ++c) dst[c] += src[c];
          });
        }
      },
      kMinChannelChunk);
}

void im2col(const Conv2dShape& s, ConstElements x, int g, int64_t r0, int64_t r1, float* col,
            const Exec& ex) {
  if (x.type == ElementType::kBFloat16) return im2col(s, x.bf16(), g, r0, r1, col, ex);
  im2col(s, x.f32(), g, r0, r1, col, ex);
}

// Calls fn(r0, r1) for each tile [r0, r1) of output rows, in order.
template <typename Fn>
void for_each_tile(const Conv2dShape& s, Fn&& fn) {
  const int64_t m = s.rows(), tile = tile_rows(s);
  for (int64_t r0 = 0; r0 < m; r0 += tile) fn(r0, std::min(m, r0 + tile));
}

// Rows of the float32 products tile through which the GEMM paths write a bfloat16 output.
int64_t product_tile_rows(const Conv2dShape& s) {
  return std::min(s.rows(), std::max(kMinTileRows, kWorkspaceBudgetFloats / s.c_out));
}

// n rows of `cols` float32 sums in `rows`: the bias added (when not null), then rounded into out
// when out is bfloat16 (when float32, `rows` are out's own). Finishes the forward's GEMM tiles
// and a bfloat16 dx's float32 chunks.
void finish_rows(int64_t cols, const float* bias, float* rows, int64_t n, Elements out,
                 const Exec& ex) {
  const bool rounded = out.type == ElementType::kBFloat16;
  if (bias == nullptr && !rounded) return;
  parallel_for(
      ex, n,
      [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          float* row = rows + r * cols;
          if (bias != nullptr) {
            for (int64_t c = 0; c < cols; ++c) row[c] += bias[c];
          }
          if (rounded) {
            convert_to_bf16(row, cols, reinterpret_cast<uint16_t*>(out.bf16() + r * cols));
          }
        }
      },
      256);
}

// Whether a bfloat16 output of a GEMM over k-long patches (with no bias to add first) comes
// rounded from the GEMM's tiles as they are stored: where k is one GEMM block (the pointwise
// layers of bottleneck blocks, forward and backward-data). Otherwise float32 products are summed
// into a tile of the workspace, and finish_rows rounds them into the output.
bool rounded_by_gemm(int64_t k, Precision precision) { return k <= gemm_max_rounded_k(precision); }

}  // namespace

// A tile of output rows at a time. Each tile's products go into y itself when y is float32 or the
// GEMM rounds them, else into a float32 tile of the workspace that finish_rows rounds into y.
void gemm_forward(const Conv2dShape& s, ConstElements x, const float* weight, const float* bias,
                  Elements y, float* workspace, const Exec& ex, Precision precision) {
  const int64_t m = s.rows(), k = s.patch(), cols = s.group_out();
  const bool via_products =
      y.type == ElementType::kBFloat16 && (bias != nullptr || !rounded_by_gemm(k, precision));
  int64_t tile = s.is_pointwise() ? m : tile_rows(s);
  if (via_products) tile = std::min(tile, product_tile_rows(s));
  float* patches = workspace;  // the im2col tile
  float* products = workspace + (s.is_pointwise() ? 0 : tile_rows(s) * k);
  for (int64_t r0 = 0; r0 < m; r0 += tile) {
    const int64_t r1 = std::min(m, r0 + tile);
    const Elements out = via_products ? Elements(products) : y.at(r0 * s.c_out);
    if (s.is_pointwise()) {
      gemm(false, false, r1 - r0, s.c_out, k, 1.0f, x.at(r0 * k), k, weight, s.c_out, 0.0f, out,
           s.c_out, ex, precision);
    } else {
      // Group g: its im2col times weight columns [g * cols, ...) into the same columns of out.
      for (int g = 0; g < s.groups; ++g) {
        im2col(s, x, g, r0, r1, patches, ex);
        gemm(false, false, r1 - r0, cols, k, 1.0f, patches, k, weight + g * cols, s.c_out, 0.0f,
             out.at(g * cols), s.c_out, ex, precision);
      }
    }
    if (out.type == ElementType::kFloat32) {
      finish_rows(s.c_out, bias, out.f32(), r1 - r0, y.at(r0 * s.c_out), ex);
    }
  }
}

void pointwise_backward_data(const Conv2dShape& s, ConstElements dy, const float* weight,
                             Elements dx, float* workspace, const Exec& ex, Precision precision,
                             bool add) {
  const int64_t m = s.rows(), k = s.patch();
  gemm(false, true, m, k, s.c_out, 1.0f, dy, s.c_out, weight, s.c_out, add ? 1.0f : 0.0f, dx, k, ex,
       precision);
}

bool pointwise_dx_rounded_by_gemm(const Conv2dShape& s, Precision precision) {
  return s.is_pointwise() && rounded_by_gemm(s.c_out, precision);
}

void col2im_backward_data(const Conv2dShape& s, ConstElements dy, const float* weight, Elements dx,
                          float* workspace, const Exec& ex, Precision precision, bool add) {
  const int64_t k = s.patch();
  const int64_t dx_size = int64_t{s.n} * s.h * s.w * s.c_in;
  parallel_for(
      ex, dx_size,
      [&](int64_t b, int64_t e) { std::memset(dx.f32() + b, 0, sizeof(float) * (e - b)); },
      1 << 16);
  const int64_t cols = s.group_out();
  for_each_tile(s, [&](int64_t r0, int64_t r1) {
    for (int g = 0; g < s.groups; ++g) {
      gemm(false, true, r1 - r0, k, cols, 1.0f, dy.at(r0 * s.c_out + g * cols), s.c_out,
           weight + g * cols, s.c_out, 0.0f, workspace, k, ex, precision);
      col2im_add(s, workspace, g, r0, r1, dx.f32(), ex);
    }
  });
}

void backward_data_in_float32_chunks(const Conv2dShape& s, ConstElements dy, const float* weight,
                                     Elements dx, float* workspace, const Exec& ex,
                                     Precision precision, bool add) {
  const Conv2dShape chunk = rounded_dx_chunk(s);
  float* chunk_dx = workspace;
  const int64_t dy_image = int64_t{s.out_h()} * s.out_w() * s.c_out;
  const int64_t dx_image = int64_t{s.h} * s.w * s.c_in;
  for (int n0 = 0; n0 < s.n; n0 += chunk.n) {
    Conv2dShape part = s;
    part.n = std::min(chunk.n, s.n - n0);
    conv2d_backward_data(part, dy.at(n0 * dy_image), weight, chunk_dx, workspace + dx_floats(chunk),
                         ex, precision);
    finish_rows(s.c_in, nullptr, chunk_dx, part.n * int64_t{s.h} * s.w, dx.at(n0 * dx_image), ex);
  }
}

Conv2dShape rounded_dx_chunk(const Conv2dShape& s) {
  Conv2dShape chunk = s;
  const int64_t image = int64_t{s.h} * s.w * s.c_in;
  chunk.n = static_cast<int>(std::clamp<int64_t>(kWorkspaceBudgetFloats / image, 1, s.n));
  return chunk;
}

size_t dx_floats(const Conv2dShape& s) {
  return AlignedBuffer::round_up(int64_t{s.n} * s.h * s.w * s.c_in);
}

void gemm_backward_weight(const Conv2dShape& s, ConstElements x, ConstElements dy, float* dweight,
                          float* workspace, const Exec& ex, Precision precision) {
  const int64_t m = s.rows(), k = s.patch();
  if (s.is_pointwise()) {
    gemm(true, false, k, s.c_out, m, 1.0f, x, k, dy, s.c_out, 1.0f, dweight, s.c_out, ex,
         precision);
    return;
  }
  const int64_t cols = s.group_out();
  for_each_tile(s, [&](int64_t r0, int64_t r1) {
    for (int g = 0; g < s.groups; ++g) {
      im2col(s, x, g, r0, r1, workspace, ex);
      gemm(true, false, k, cols, r1 - r0, 1.0f, workspace, k, dy.at(r0 * s.c_out + g * cols),
           s.c_out, 1.0f, dweight + g * cols, s.c_out, ex, precision);
    }
  });
}

size_t gemm_workspace_floats(const Conv2dShape& s) {
  const size_t im2col = s.is_pointwise() ? 0 : static_cast<size_t>(tile_rows(s) * s.patch());
  const size_t products = static_cast<size_t>(product_tile_rows(s) * s.c_out);  // bfloat16 y
  return im2col + products;
}

}  // namespace xtrain::kernels
