// The direct kernels' bfloat16 passes (conv2d_direct_bf16.h): each rounds a padded copy of a chunk
// of images into the workspace (the copy is the rounding) and sweeps it with BFloat16Math's
// register tiles. Built only for a CPU with AVX512_BF16.
#include "lib/kernels/conv2d_direct_bf16.h"

#if defined(__AVX512BF16__)

#include <algorithm>
#include <cstring>

#include "lib/kernels/bf16_pairs.h"
#include "lib/kernels/conv2d_direct_bf16_math.h"
#include "lib/kernels/conv2d_direct_phases.h"
#include "lib/kernels/conv2d_direct_sizes.h"
#include "lib/kernels/conv2d_direct_sweep.h"
#include "lib/kernels/conv2d_direct_tiles.h"
#include "lib/kernels/conv2d_direct_weight.h"

namespace xtrain::kernels {

using direct::backward_weight_pass;
using direct::bf16_dy_chunk;
using direct::bf16_input_chunk;
using direct::bf16_weight_chunk;
using direct::bf16_weight_scratch;
using direct::BFloat16Math;
using direct::dy_padding;
using direct::for_each_chunk;
using direct::forward_grid;
using direct::kernel_row_weights;
using direct::pad_rows;
using direct::PaddedInput;
using direct::pair_dy;
using direct::paired_kernel_floats;
using direct::phase_kernels;
using direct::sweep;
using direct::sweep_phases;
using direct::WeightPassScratch;
using direct::zero_untouched_phases;

namespace {

// src[i] as bfloat16 bits into dst[i], i < n: rounded from float32, copied from bfloat16.
void put_bf16(const float* src, int64_t n, uint16_t* dst) { convert_to_bf16(src, n, dst); }
void put_bf16(const BFloat16* src, int64_t n, uint16_t* dst) {
  std::memcpy(dst, src, sizeof(uint16_t) * n);
}

// x [n, h, w, c] (float32 or bfloat16) as bfloat16 with `pad` zero pixels on every side, in out,
// and a zero after it: an odd run's last pair reads one element past the run (BFloat16Math).
template <typename S>
PaddedInput<uint16_t> pad_input_bf16(const S* x, int n, int h, int w, int c, int pad, uint16_t* out,
                                     const Exec& ex) {
  pad_rows(
      x, n, h, w, c, pad, out,
      [&](const S* src, uint16_t* dst) { put_bf16(src, int64_t{w} * c, dst); }, ex);
  out[int64_t{n} * (h + 2 * pad) * (w + 2 * pad) * c] = 0;
  return {out, h + 2 * pad, w + 2 * pad, c, pad};
}

PaddedInput<uint16_t> pad_input_bf16(ConstElements x, int n, int h, int w, int c, int pad,
                                     uint16_t* out, const Exec& ex) {
  if (x.type == ElementType::kBFloat16) {
    return pad_input_bf16(x.bf16(), n, h, w, c, pad, out, ex);
  }
  return pad_input_bf16(x.f32(), n, h, w, c, pad, out, ex);
}

// A kernel [kh, kw, c, c_out] paired for BFloat16Math: pair q of kernel row ky holds the row's
// taps 2q and 2q + 1 (tap t: kernel column t / c, channel t % c) per output channel, a tap past an
// odd row's end zero.
void pair_kernel(int kh, int kw, int64_t c, int64_t c_out, const float* weight, uint32_t* out,
                 const Exec& ex) {
  const int64_t taps = kw * c, pairs = kernel_row_weights(taps, 2);
  auto row = [&](int64_t ky, int64_t tap) -> const float* {
    return tap < taps ? weight + (ky * taps + tap) * c_out : nullptr;
  };
  parallel_for(
      ex, kh * pairs,
      [&](int64_t u0, int64_t u1) {
        for (int64_t u = u0; u < u1; ++u) {
          const int64_t ky = u / pairs, q = u % pairs;
          interleave_pair(row(ky, 2 * q), row(ky, 2 * q + 1), c_out, out + u * c_out);
        }
      },
      64);
}

// For each element i of x's padded rows, the pair (x[i], x[i + pixel_step]): a tap's input for
// two neighbouring output pixels (the second 0 past the row's end).
PaddedInput<uint32_t> pair_pixels(const PaddedInput<uint16_t>& x, int images, int64_t pixel_step,
                                  uint32_t* out, const Exec& ex) {
  const int64_t row = x.wp * x.c, paired = std::max<int64_t>(0, row - pixel_step);
  parallel_for(
      ex, images * x.hp,
      [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const BFloat16* src = reinterpret_cast<const BFloat16*>(x.data) + r * row;
          uint32_t* dst = out + r * row;
          interleave_pair(src, src + pixel_step, paired, dst);
          interleave_pair(src + paired, nullptr, row - paired, dst + paired);
        }
      },
      4);
  return {out, x.hp, x.wp, x.c, x.pad};
}

template <typename Out>
void sweep_forward(const Conv2dShape& s, ConstElements x, const float* weight, const float* bias,
                   Out* y, float* workspace, const Exec& ex) {
  // A kernel row's taps are kw runs of group_in channels (even when grouped), in the weight's row
  // order, or ungrouped one run of kw x c_in.
  uint32_t* kernel = reinterpret_cast<uint32_t*>(workspace);
  pair_kernel(s.kh, s.kw, s.group_in(), s.c_out, weight, kernel, ex);
  uint16_t* padded = reinterpret_cast<uint16_t*>(
      workspace + paired_kernel_floats(s.kh, s.kw, s.group_in(), s.c_out));
  const int64_t x_image = int64_t{s.h} * s.w * s.c_in;
  const int64_t y_image = int64_t{s.out_h()} * s.out_w() * s.c_out;
  for_each_chunk(s.n, bf16_input_chunk(s), [&](int n0, int images) {
    const PaddedInput<uint16_t> in =
        pad_input_bf16(x.at(n0 * x_image), images, s.h, s.w, s.c_in, s.pad_h, padded, ex);
    sweep(forward_grid<BFloat16Math>(s, in, kernel, bias, y + n0 * y_image, images), ex);
  });
}

// Out: float, or bfloat16 bits for a bfloat16 dx. Every element of dx is one phase's sum over its
// taps, so rounding the register tiles as they are stored rounds each sum once.
template <typename Out>
void sweep_backward_data(const Conv2dShape& s, ConstElements dy, const float* weight, Out* dx,
                         float* workspace, const Exec& ex) {
  const int pad = dy_padding(s);
  zero_untouched_phases(s, dx, ex);
  // Each phase's kernel is [taps, group_out / 2, c_in] pairs: group_out is even (a multiple of
  // the vector width), so no pair straddles two taps.
  uint32_t* paired = reinterpret_cast<uint32_t*>(workspace);
  phase_kernels<BFloat16Math>(s, weight, paired, ex);
  uint16_t* padded = reinterpret_cast<uint16_t*>(
      workspace + paired_kernel_floats(s.kh, s.kw, s.group_out(), s.c_in));
  const int64_t dy_image = int64_t{s.out_h()} * s.out_w() * s.c_out;
  const int64_t dx_image = int64_t{s.h} * s.w * s.c_in;
  for_each_chunk(s.n, bf16_dy_chunk(s), [&](int n0, int images) {
    const PaddedInput<uint16_t> in = pad_input_bf16(dy.at(n0 * dy_image), images, s.out_h(),
                                                    s.out_w(), s.c_out, pad, padded, ex);
    sweep_phases<BFloat16Math>(s, in, pad, paired, s.group_out() / 2 * s.c_in, dx + n0 * dx_image,
                               images, ex);
  });
}

}  // namespace

void conv2d_direct_bf16_forward(const Conv2dShape& s, ConstElements x, const float* weight,
                                const float* bias, Elements y, float* workspace, const Exec& ex,
                                Precision precision) {
  if (y.type == ElementType::kBFloat16) {
    return sweep_forward(s, x, weight, bias, reinterpret_cast<uint16_t*>(y.bf16()), workspace, ex);
  }
  sweep_forward(s, x, weight, bias, y.f32(), workspace, ex);
}

void conv2d_direct_bf16_backward_data(const Conv2dShape& s, ConstElements dy, const float* weight,
                                      Elements dx, float* workspace, const Exec& ex,
                                      Precision precision, bool add) {
  if (dx.type == ElementType::kBFloat16) {
    return sweep_backward_data(s, dy, weight, reinterpret_cast<uint16_t*>(dx.bf16()), workspace,
                               ex);
  }
  sweep_backward_data(s, dy, weight, dx.f32(), workspace, ex);
}

// Per chunk of images: x padded and rounded, its pixel pairs, dy's pixel pairs, then the channel
// tiles over them.
void conv2d_direct_bf16_backward_weight(const Conv2dShape& s, ConstElements x, ConstElements dy,
                                        float* dweight, float* workspace, const Exec& ex,
                                        Precision precision) {
  const int chunk = bf16_weight_chunk(s);
  const WeightPassScratch scratch = bf16_weight_scratch(s, chunk);
  uint16_t* padded = reinterpret_cast<uint16_t*>(workspace);
  uint32_t* pixels = reinterpret_cast<uint32_t*>(workspace + scratch.x);
  uint32_t* dy_pairs = pixels + scratch.x_pairs;
  const int64_t x_image = int64_t{s.h} * s.w * s.c_in;
  const int64_t dy_image = int64_t{s.out_h()} * s.out_w() * s.c_out;
  for_each_chunk(s.n, chunk, [&](int n0, int images) {
    Conv2dShape part = s;
    part.n = images;
    const PaddedInput<uint16_t> in =
        pad_input_bf16(x.at(n0 * x_image), images, s.h, s.w, s.c_in, s.pad_h, padded, ex);
    pair_dy(dy.at(n0 * dy_image), int64_t{images} * s.out_h(), s.out_w(), s.c_out, dy_pairs, ex);
    const PaddedInput<uint32_t> pairs =
        pair_pixels(in, images, int64_t{s.stride} * s.c_in, pixels, ex);
    backward_weight_pass<BFloat16Math>(part, pairs, dy_pairs, dweight, ex);
  });
}

}  // namespace xtrain::kernels

#endif
