#include "lib/kernels/conv2d_depthwise.h"

#include <algorithm>
#include <cstdint>

#include "lib/kernels/simd.h"

namespace xtrain::kernels {
namespace {

using simd::kLanes;
using simd::Vec;

// Blocks of output rows whose backward-weight sums are kept apart: enough to give every thread of a
// core's pool several, few enough that their partials stay small next to the layer's activations
// and add up in a moment.
constexpr int64_t kWeightBlocks = 32;

// Kernel taps a pixel's operands are gathered for, on the stack: up to 8x8 kernels, past any in
// torchvision's models (their depthwise kernels are 3x3 and 5x5).
constexpr int kMaxTaps = 64;

// The output columns [begin, end) whose input column ox * stride - pad_w + kx lies in the image.
struct Columns {
  int begin, end;
};

Columns columns_inside(const Conv2dShape& s, int kx) {
  const int first = s.pad_w - kx;           // ox * stride >= first
  const int last = s.w - 1 + s.pad_w - kx;  // ox * stride <= last
  const int begin = first > 0 ? (first + s.stride - 1) / s.stride : 0;
  const int end = last < 0 ? 0 : std::min(s.out_w(), last / s.stride + 1);
  return {begin, std::max(begin, end)};
}

// One kernel tap's operands for one pixel: the activations it reads there and its weights, both
// [C].
struct Tap {
  const float* in;
  const float* w;
};

// out[i] = start[i] + the products in[i] * w[i] of the taps in order, for i < c (start null: 0):
// a vector of channels at a time, each summed in a register and stored once, the channels past the
// last whole vector one at a time. out may be start.
void sum_taps(const Tap* taps, int count, const float* start, float* out, int c) {
  int i = 0;
  for (; i + kLanes <= c; i += kLanes) {
    Vec sum = start != nullptr ? simd::load(start + i) : simd::zero();
    for (int t = 0; t < count; ++t) {
      sum = simd::fma(simd::load(taps[t].in + i), simd::load(taps[t].w + i), sum);
    }
    simd::store(out + i, sum);
  }
  for (; i < c; ++i) {
    float sum = start != nullptr ? start[i] : 0.0f;
    for (int t = 0; t < count; ++t) sum += taps[t].in[i] * taps[t].w[i];
    out[i] = sum;
  }
}

// dw[i] += sum over pixels p of x[p * x_step + i] * dy[p * c + i], for i < c. A vector of channels
// sums its pixels in four interleaved chains (pixel p into chain p % 4), joined as (0 + 1) + (2 +
// 3): one chain would wait on each multiply-add's latency.
void add_channel_products(const float* x, int64_t x_step, const float* dy, int pixels, float* dw,
                          int c) {
  int i = 0;
  for (; i + kLanes <= c; i += kLanes) {
    Vec sums[4] = {simd::zero(), simd::zero(), simd::zero(), simd::zero()};
    int p = 0;
    for (; p + 4 <= pixels; p += 4) {
      for (int j = 0; j < 4; ++j) {
        sums[j] = simd::fma(simd::load(x + (p + j) * x_step + i),
                            simd::load(dy + int64_t{p + j} * c + i), sums[j]);
      }
    }
    for (; p < pixels; ++p) {
      sums[p % 4] = simd::fma(simd::load(x + p * x_step + i), simd::load(dy + int64_t{p} * c + i),
                              sums[p % 4]);
    }
    const Vec total = simd::add(simd::add(sums[0], sums[1]), simd::add(sums[2], sums[3]));
    simd::store(dw + i, simd::add(simd::load(dw + i), total));
  }
  for (; i < c; ++i) {
    float sum = 0.0f;
    for (int p = 0; p < pixels; ++p) sum += x[p * x_step + i] * dy[int64_t{p} * c + i];
    dw[i] += sum;
  }
}

// y's output row `row` (image n = row / OH): each pixel's bias (or zero), then its taps inside
// the image in tap order.
void forward_row(const Conv2dShape& s, const float* x, const float* weight, const float* bias,
                 float* y, int64_t row) {
  const int c = s.c_in, oh = s.out_h(), ow = s.out_w();
  const int64_t n = row / oh;
  const int oy = static_cast<int>(row % oh);
  float* y_row = y + row * ow * c;
  Tap taps[kMaxTaps];
  for (int ox = 0; ox < ow; ++ox) {
    int count = 0;
    for (int ky = 0; ky < s.kh; ++ky) {
      const int iy = oy * s.stride - s.pad_h + ky;
      if (iy < 0 || iy >= s.h) continue;
      const float* x_row = x + (n * s.h + iy) * s.w * c;
      for (int kx = 0; kx < s.kw; ++kx) {
        const int ix = ox * s.stride - s.pad_w + kx;
        if (ix < 0 || ix >= s.w) continue;
        taps[count++] = {x_row + int64_t{ix} * c, weight + (int64_t{ky} * s.kw + kx) * c};
      }
    }
    sum_taps(taps, count, bias, y_row + int64_t{ox} * c, c);
  }
}

// dx's input row `row` (image n = row / H): each pixel's old value with `add` (else zero), then
// the taps that reach it from a pixel of dy, in tap order.
void backward_data_row(const Conv2dShape& s, const float* dy, const float* weight, float* dx,
                       int64_t row, bool add) {
  const int c = s.c_in, oh = s.out_h(), ow = s.out_w();
  const int64_t n = row / s.h;
  const int iy = static_cast<int>(row % s.h);
  float* dx_row = dx + row * s.w * c;
  Tap taps[kMaxTaps];
  for (int ix = 0; ix < s.w; ++ix) {
    int count = 0;
    for (int ky = 0; ky < s.kh; ++ky) {
      const int ty = iy + s.pad_h - ky;  // oy * stride
      if (ty < 0 || ty % s.stride != 0 || ty / s.stride >= oh) continue;
      const float* dy_row = dy + (n * oh + ty / s.stride) * ow * c;
      for (int kx = 0; kx < s.kw; ++kx) {
        const int tx = ix + s.pad_w - kx;  // ox * stride
        if (tx < 0 || tx % s.stride != 0 || tx / s.stride >= ow) continue;
        taps[count++] = {dy_row + int64_t{tx / s.stride} * c,
                         weight + (int64_t{ky} * s.kw + kx) * c};
      }
    }
    float* dx_pixel = dx_row + int64_t{ix} * c;
    sum_taps(taps, count, add ? dx_pixel : nullptr, dx_pixel, c);
  }
}

// partial [KH, KW, C] += output row `row`'s products, tap by tap.
void backward_weight_row(const Conv2dShape& s, const float* x, const float* dy, float* partial,
                         int64_t row) {
  const int c = s.c_in, oh = s.out_h(), ow = s.out_w();
  const int64_t n = row / oh;
  const int oy = static_cast<int>(row % oh);
  const float* dy_row = dy + row * ow * c;
  for (int ky = 0; ky < s.kh; ++ky) {
    const int iy = oy * s.stride - s.pad_h + ky;
    if (iy < 0 || iy >= s.h) continue;
    const float* x_row = x + (n * s.h + iy) * s.w * c;
    for (int kx = 0; kx < s.kw; ++kx) {
      const Columns cols = columns_inside(s, kx);
      if (cols.begin == cols.end) continue;
      const int ix = cols.begin * s.stride - s.pad_w + kx;
      add_channel_products(x_row + int64_t{ix} * c, int64_t{s.stride} * c,
                           dy_row + int64_t{cols.begin} * c, cols.end - cols.begin,
                           partial + (int64_t{ky} * s.kw + kx) * c, c);
    }
  }
}

// Rows of output pixels: N * OH (Conv2dShape::rows counts pixels).
int64_t output_rows(const Conv2dShape& s) { return int64_t{s.n} * s.out_h(); }

int64_t weight_blocks(const Conv2dShape& s) { return std::min(output_rows(s), kWeightBlocks); }

int64_t taps_by_channels(const Conv2dShape& s) { return int64_t{s.kh} * s.kw * s.c_in; }

}  // namespace

// A depthwise layer's products are a vector of channels times a vector of weights, which no GEMM
// or dense direct kernel does without multiplying zeros between the channels.
bool conv2d_depthwise_suits(const Conv2dShape& s, Precision precision) {
  return precision == Precision::kFloat32 && s.groups == s.c_in && s.c_in == s.c_out &&
         s.kh * s.kw <= kMaxTaps;
}

size_t conv2d_depthwise_workspace_floats(const Conv2dShape& s) {
  if (s.groups != s.c_in || s.c_in != s.c_out) return 0;
  return static_cast<size_t>(weight_blocks(s) * taps_by_channels(s));
}

void conv2d_depthwise_forward(const Conv2dShape& s, ConstElements x, const float* weight,
                              const float* bias, Elements y, float* /*workspace*/, const Exec& ex,
                              Precision /*precision*/) {
  parallel_for(ex, output_rows(s), [&](int64_t r0, int64_t r1) {
    for (int64_t row = r0; row < r1; ++row) forward_row(s, x.f32(), weight, bias, y.f32(), row);
  });
}

void conv2d_depthwise_backward_data(const Conv2dShape& s, ConstElements dy, const float* weight,
                                    Elements dx, float* /*workspace*/, const Exec& ex,
                                    Precision /*precision*/, bool add) {
  parallel_for(ex, int64_t{s.n} * s.h, [&](int64_t r0, int64_t r1) {
    for (int64_t row = r0; row < r1; ++row) {
      backward_data_row(s, dy.f32(), weight, dx.f32(), row, add);
    }
  });
}

void conv2d_depthwise_backward_weight(const Conv2dShape& s, ConstElements x, ConstElements dy,
                                      float* dweight, float* workspace, const Exec& ex,
                                      Precision /*precision*/) {
  const int64_t blocks = weight_blocks(s), size = taps_by_channels(s), rows = output_rows(s);
  parallel_for(ex, blocks, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      float* partial = workspace + b * size;
      std::fill_n(partial, size, 0.0f);
      for (int64_t row = rows * b / blocks; row < rows * (b + 1) / blocks; ++row) {
        backward_weight_row(s, x.f32(), dy.f32(), partial, row);
      }
    }
  });
  // Each weight adds the blocks' partials in block order.
  constexpr int64_t kMinWeights = 1024;
  parallel_for(
      ex, size,
      [&](int64_t i0, int64_t i1) {
        for (int64_t b = 0; b < blocks; ++b) {
          const float* partial = workspace + b * size;
          for (int64_t i = i0; i < i1; ++i) dweight[i] += partial[i];
        }
      },
      kMinWeights);
}

}  // namespace xtrain::kernels
