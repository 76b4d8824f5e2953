// The direct backward-data pass as forward sweeps (conv2d_direct_sweep.h): dx = conv_transpose(dy,
// weight) is, for each phase of dx (stride x stride of them), a stride-1 convolution of the padded
// dy with that phase's taps of the weight, flipped in space and transposed in channels. Templated
// on the arithmetic (Float32Math, BFloat16Math); internal to the direct kernels' files.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "lib/kernels/conv2d.h"
#include "lib/kernels/conv2d_direct_sweep.h"
#include "lib/kernels/conv2d_direct_tiles.h"

namespace xtrain::kernels::direct {

// Backward-data along one spatial dimension. dx position i = stride * t + phase - pad is fed by
// the taps phase, phase + stride, ... (`taps` of them) from dy positions t - taps + 1 .. t, so
// each phase of dx is a stride-1 convolution of dy with that phase's taps, flipped.
struct Phase {
  int taps;
  int t0;     // t of the phase's first dx position inside the image
  int count;  // dx positions of this phase
};

inline Phase phase_of(int size, int kernel, int stride, int pad, int phase) {
  Phase p{};
  p.taps = phase < kernel ? (kernel - phase + stride - 1) / stride : 0;
  p.t0 = phase >= pad ? 0 : (pad - phase + stride - 1) / stride;
  const int last = size - 1 + pad - phase;  // the last dx position has stride * t <= last
  p.count = last < 0 ? 0 : std::max(0, last / stride - p.t0 + 1);
  return p;
}

// Calls fn(a, rows, b, cols) for each phase (a, b) of dx that has taps and positions, in order.
template <typename Fn>
void for_each_phase(const Conv2dShape& s, Fn&& fn) {
  for (int a = 0; a < s.stride; ++a) {
    for (int b = 0; b < s.stride; ++b) {
      const Phase rows = phase_of(s.h, s.kh, s.stride, s.pad_h, a);
      const Phase cols = phase_of(s.w, s.kw, s.stride, s.pad_w, b);
      if (rows.taps == 0 || cols.taps == 0 || rows.count == 0 || cols.count == 0) continue;
      fn(a, rows, b, cols);
    }
  }
}

// Zero padding of dy that keeps every phase's windows inside the padded dy.
inline int dy_padding(const Conv2dShape& s) {
  int pad = 0;
  for (int phase = 0; phase < s.stride; ++phase) {
    const Phase rows = phase_of(s.h, s.kh, s.stride, s.pad_h, phase);
    const Phase cols = phase_of(s.w, s.kw, s.stride, s.pad_w, phase);
    for (const auto& [p, out] : {std::pair{rows, s.out_h()}, std::pair{cols, s.out_w()}}) {
      if (p.taps == 0 || p.count == 0) continue;
      pad = std::max({pad, p.taps - 1 - p.t0, p.t0 + p.count - out});
    }
  }
  return pad;
}

// kernel[m, n, j, ci] = weight[a + stride (taps_a - 1 - m), b + stride (taps_b - 1 - n), i, co]:
// the taps of phase (a, b), flipped in space and transposed in channels, for input channel ci =
// g x group_in + i and output channel co = g x group_out + j of the same group g, as Math's
// weights (bfloat16: j in pairs). The transposed convolution has the same groups, with group_out
// input and group_in output channels each. Each tap of each group is a blocked transpose,
// threads taking bands of its input channels.
template <typename Math>
void phase_kernel(const Conv2dShape& s, const float* weight, int a, int taps_a, int b, int taps_b,
                  typename Math::Weight* kernel, const Exec& ex) {
  const int gi = s.group_in(), go = s.group_out();
  const int64_t tap_rows = kernel_row_weights(go, Math::kStep);
  constexpr int kBand = 64;  // input channels of a tap's group per task
  const int64_t bands = (gi + kBand - 1) / kBand, per_tap = int64_t{s.groups} * bands;
  parallel_for(
      ex, taps_a * taps_b * per_tap,
      [&](int64_t u0, int64_t u1) {
        for (int64_t u = u0; u < u1; ++u) {
          const int tap = static_cast<int>(u / per_tap), g = static_cast<int>(u % per_tap / bands);
          const int i0 = static_cast<int>(u % bands) * kBand, i1 = std::min(gi, i0 + kBand);
          const int m = tap / taps_b, n = tap % taps_b;
          const int ky = a + s.stride * (taps_a - 1 - m), kx = b + s.stride * (taps_b - 1 - n);
          const float* src = weight + (int64_t{ky} * s.kw + kx) * gi * s.c_out;
          typename Math::Weight* dst = kernel + tap * tap_rows * s.c_in;
          Math::transpose_weights(src + int64_t{i0} * s.c_out + int64_t{g} * go, i1 - i0, go,
                                  s.c_out, dst + int64_t{g} * gi + i0, s.c_in);
        }
      },
      1);
}

// The phases' kernels (phase_kernel), one after the other at `kernel`.
template <typename Math>
void phase_kernels(const Conv2dShape& s, const float* weight, typename Math::Weight* kernel,
                   const Exec& ex) {
  const int64_t tap_rows = kernel_row_weights(s.group_out(), Math::kStep);
  for_each_phase(s, [&](int a, const Phase& rows, int b, const Phase& cols) {
    phase_kernel<Math>(s, weight, a, rows.taps, b, cols.taps, kernel, ex);
    kernel += int64_t{rows.taps} * cols.taps * tap_rows * s.c_in;
  });
}

// The grid of phase (a, b) of dx over a chunk of `images` images of dy, padded by `pad` in `in`:
// the phase's dx positions, fed by its kernel.
template <typename Math, typename Out>
TileGrid<Math, Out> phase_grid(const Conv2dShape& s, const PaddedInput<typename Math::In>& in,
                               int pad, int a, const Phase& rows, int b, const Phase& cols,
                               const typename Math::Weight* kernel, Out* dx, int64_t images) {
  // The first dy row and column of the phase's window, and its first dx position.
  const int64_t top = rows.t0 - (rows.taps - 1) + pad;
  const int64_t left = cols.t0 - (cols.taps - 1) + pad;
  const int64_t first_out =
      int64_t{s.stride * rows.t0 + a - s.pad_h} * s.w + s.stride * cols.t0 + b - s.pad_w;
  TileGrid<Math, Out> grid =
      grid_over<Math, Out>(in, top, left, 1, rows.taps, cols.taps, s.groups, images);
  grid.rows = rows.count;
  grid.cols = cols.count;
  grid.out = dx + first_out * s.c_in;
  grid.out_image = int64_t{s.h} * s.w * s.c_in;
  grid.out_row = int64_t{s.stride} * s.w * s.c_in;
  grid.out_pixel = s.stride * s.c_in;
  grid.weight = kernel;
  grid.bias = nullptr;
  grid.c_out = s.c_in;
  grid.group_out = s.c_in / s.groups;
  return grid;
}

// The backward-data pass over a chunk of `images` images of dy, padded by `pad` in `in` (float32
// or bfloat16), with the phases' kernels one after the other at `kernel`, `per_tap` Weights apart
// per tap.
template <typename Math, typename Out>
void sweep_phases(const Conv2dShape& s, const PaddedInput<typename Math::In>& in, int pad,
                  const typename Math::Weight* kernel, int64_t per_tap, Out* dx, int images,
                  const Exec& ex) {
  for_each_phase(s, [&](int a, const Phase& rows, int b, const Phase& cols) {
    sweep(phase_grid<Math, Out>(s, in, pad, a, rows, b, cols, kernel, dx, images), ex);
    kernel += int64_t{rows.taps} * cols.taps * per_tap;
  });
}

// dx = 0 where no phase writes: when the kernel is smaller than the stride, some phases have no
// taps.
template <typename Out>
void zero_untouched_phases(const Conv2dShape& s, Out* dx, const Exec& ex) {
  if (s.kh >= s.stride && s.kw >= s.stride) return;
  const int64_t dx_size = int64_t{s.n} * s.h * s.w * s.c_in;
  parallel_for(
      ex, dx_size, [&](int64_t b, int64_t e) { std::memset(dx + b, 0, sizeof(Out) * (e - b)); },
      1 << 16);
}

}  // namespace xtrain::kernels::direct
