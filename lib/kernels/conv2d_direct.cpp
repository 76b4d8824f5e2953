#include "lib/kernels/conv2d_direct.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "lib/kernels/simd.h"
#include "lib/tensor/aligned_buffer.h"

namespace xtrain::kernels {
namespace {

using simd::Vec;
constexpr int kLanes = simd::kLanes;

// Vector registers of the target: a tile's accumulators and operands must all fit.
#if defined(__AVX512F__)
constexpr int kRegisters = 32;
#else
constexpr int kRegisters = 16;
#endif

// Output pixels per forward tile, each NV vectors of channels: as many as the registers hold, at
// most 14, so ResNet widths (112, 56, 28, 14, 7) split into whole tiles.
constexpr int forward_tile_pixels(int nv) { return std::min(14, (kRegisters - nv - 1) / nv); }
// Weight rows per backward-weight tile.
constexpr int weight_tile_rows(int nv) { return std::min(12, (kRegisters - nv - 1) / nv); }

// The direct kernels win while a patch element feeds few FMAs and im2col + packing dominate;
// past this many input channels the packed GEMM of conv2d.cpp is faster (bench_conv).
constexpr int kMaxDirectInChannels = 256;
// Bytes of dy and input per backward-weight chunk of output rows: the chunk stays in L2 (half of
// a 1 MB one) while every weight tile of a thread sweeps it.
constexpr int64_t kWeightChunkBytes = int64_t{512} << 10;

// Groups the direct kernels take: up to the GEMM micro-kernel's width of output channels (two
// vectors). Wider groups fill the micro-kernel, and a GEMM per group wins: ResNeXt-50's last
// 3x3 layer (32 channels per group, 7x7, batch 16; AVX2, bench_conv) runs forward in 4.9 ms on
// the GEMM against 9.1 ms here, while its 16-channel groups at 14x14 take 5.1 ms here against 7.1.
bool narrow_groups(const Conv2dShape& s) { return s.groups == 1 || s.group_out() <= 2 * kLanes; }

// Vectors of output channels per tile: two when the channels split evenly into pairs.
int vectors_per_tile(int c_out) { return c_out % (2 * kLanes) == 0 ? 2 : 1; }

// An NHWC batch with its zero padding materialized: [n, hp, wp, c].
struct PaddedInput {
  const float* data;
  int64_t hp, wp, c;
};

size_t padded_floats(int64_t n, int64_t h, int64_t w, int64_t c, int pad) {
  return pad == 0 ? 0 : static_cast<size_t>(n * (h + 2 * pad) * (w + 2 * pad) * c);
}

// The passes pad a chunk of images at a time, as many as fit this many floats (at least one), so
// the workspace stays a few MB whatever the batch (a whole ResNet-50 batch of 128, padded, is
// 220 MB). Images are independent in the forward and backward-data passes, and the
// backward-weight pass goes through the chunks in order, so results do not depend on the chunking.
constexpr int64_t kPaddedChunkFloats = int64_t{1} << 20;

int images_per_chunk(int n, int64_t h, int64_t w, int64_t c, int pad) {
  const size_t per_image = padded_floats(1, h, w, c, pad);
  if (per_image == 0) return n;  // nothing is padded: the pass reads its input in place
  return static_cast<int>(std::clamp<int64_t>(kPaddedChunkFloats / per_image, 1, n));
}

// Calls fn(n0, images) for each chunk [n0, n0 + images) of a batch of n, in order.
template <typename Fn>
void for_each_chunk(int n, int chunk, Fn&& fn) {
  for (int n0 = 0; n0 < n; n0 += chunk) fn(n0, std::min(chunk, n - n0));
}

// x [n, h, w, c] with `pad` zero pixels on every side, in out (x itself when pad is 0).
PaddedInput pad_input(const float* x, int n, int h, int w, int c, int pad, float* out,
                      const Exec& ex) {
  if (pad == 0) return {x, h, w, c};
  const int64_t hp = h + 2 * pad, wp = w + 2 * pad;
  parallel_for(
      ex, n * hp,
      [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          float* dst = out + r * wp * c;
          const int64_t image = r / hp, ih = r % hp - pad;
          if (ih < 0 || ih >= h) {
            std::memset(dst, 0, sizeof(float) * wp * c);
            continue;
          }
          std::memset(dst, 0, sizeof(float) * pad * c);
          std::memcpy(dst + pad * c, x + (image * h + ih) * w * c, sizeof(float) * w * c);
          std::memset(dst + (pad + w) * c, 0, sizeof(float) * pad * c);
        }
      },
      16);
  return {out, hp, wp, c};
}

// The register tiles of both kernels: R rows of NV vectors, rows `ld` floats apart in memory.
// Every loop over a tile is unrolled, so the tile lives in registers.
template <int R, int NV>
inline void load_tile(Vec (&acc)[R][NV], const float* src, int64_t ld) {
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) acc[r][v] = simd::load(src + r * ld + v * kLanes);
  }
}

template <int R, int NV>
inline void store_tile(const Vec (&acc)[R][NV], float* dst, int64_t ld) {
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) simd::store(dst + r * ld + v * kLanes, acc[r][v]);
  }
}

// acc[r][v] += a[r * a_step] * b[v lanes]: a rank-1 update, the whole inner loop of both kernels
// (a broadcast per row, a vector load per column block, R x NV FMAs).
template <int R, int NV>
inline void rank1_update(Vec (&acc)[R][NV], const float* a, int64_t a_step, const float* b) {
  Vec bv[NV];
#pragma GCC unroll 2
  for (int v = 0; v < NV; ++v) bv[v] = simd::load(b + v * kLanes);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    const Vec av = simd::broadcast(a + r * a_step);
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) acc[r][v] = simd::fma(av, bv[v], acc[r][v]);
  }
}

// The taps of one kernel row, as runs of neighbouring floats in the padded input: `runs` runs of
// `run` taps, `run_step` floats apart, whose weight rows follow each other. In NHWC an ungrouped
// kernel row's kw x c_in taps are one run, contiguous both in the input and in the weight; with
// groups, each kx is a run of its group's input channels, and the runs are c_in floats apart.
struct TapRuns {
  int64_t runs, run, run_step;

  int64_t count() const { return runs * run; }  // weight rows per kernel row
};

TapRuns tap_runs(int kw, int64_t channels, int groups) {
  if (groups == 1) return {1, kw * channels, 0};
  return {kw, channels / groups, channels};
}

// One forward tile: `Pixels` output pixels along an output row times NV vectors of output
// channels of one group, through that group's taps.
struct ForwardTile {
  const float* in;     // padded input at the first pixel's receptive field (ky = kx = 0, the
                       // group's first channel)
  int64_t pixel_step;  // floats between neighbouring pixels' receptive fields (stride * c_in)
  int64_t row_step;    // floats between padded input rows
  int kh;
  TapRuns taps;
  const float* weight;  // weight at the tile's first output channel
  int64_t c_out;
  float* out;        // output at the tile's first pixel and channel
  int64_t out_step;  // floats between the tile's output pixels
};

template <int Pixels, int NV>
void forward_tile(const ForwardTile& t) {
  Vec acc[Pixels][NV] = {};
  for (int ky = 0; ky < t.kh; ++ky) {
    const float* in = t.in + ky * t.row_step;
    const float* w = t.weight + ky * t.taps.count() * t.c_out;
    for (int64_t k = 0; k < t.taps.runs; ++k, in += t.taps.run_step, w += t.taps.run * t.c_out) {
      for (int64_t q = 0; q < t.taps.run; ++q) {
        rank1_update(acc, in + q, t.pixel_step, w + q * t.c_out);
      }
    }
  }
  store_tile(acc, t.out, t.out_step);
}

// One backward-weight tile: `Rows` consecutive taps of one kernel row (weight rows) times NV
// vectors of output channels, summed over output pixels [pixel rows row0, row1) in order and
// added to what dweight holds.
struct WeightTile {
  const float* in;     // padded input of image 0 at (ky, first tap of the tile)
  int64_t image_step;  // floats between padded images
  int64_t row_step;    // floats between the receptive fields of neighbouring output rows
  int64_t pixel_step;  // ... of neighbouring output pixels
  int out_h, out_w;
  const float* dy;  // dy at the tile's first output channel
  int64_t c_out;
  float* dweight;  // dweight at the tile's first row and channel
};

template <int Rows, int NV>
void weight_tile(const WeightTile& t, int64_t row0, int64_t row1) {
  Vec acc[Rows][NV];
  load_tile(acc, t.dweight, t.c_out);
  for (int64_t row = row0; row < row1; ++row) {
    const float* in = t.in + row / t.out_h * t.image_step + row % t.out_h * t.row_step;
    const float* dy = t.dy + row * t.out_w * t.c_out;
    for (int ox = 0; ox < t.out_w; ++ox) {
      rank1_update(acc, in + ox * t.pixel_step, 1, dy + ox * t.c_out);
    }
  }
  store_tile(acc, t.dweight, t.c_out);
}

// Tile functions for every partial size 1..N, indexed by size - 1: a row of output pixels or a
// kernel row's taps rarely divides evenly, and each size needs its own register tile.
template <int NV, int... I>
constexpr auto forward_tiles(std::integer_sequence<int, I...>) {
  return std::array<void (*)(const ForwardTile&), sizeof...(I)>{&forward_tile<I + 1, NV>...};
}
template <int NV, int... I>
constexpr auto weight_tiles(std::integer_sequence<int, I...>) {
  return std::array<void (*)(const WeightTile&, int64_t, int64_t), sizeof...(I)>{
      &weight_tile<I + 1, NV>...};
}

// A grid of forward tiles: per image, `rows` x `cols` outputs, with the steps between their
// receptive fields in the padded input and between the outputs themselves. A plain convolution
// sweeps its whole output; a strided one's backward-data sweeps one phase of dx at a time.
struct Sweep {
  int64_t images;
  int rows, cols;
  const float* in;                     // the first output's receptive field
  int64_t in_image, in_row, in_pixel;  // floats between receptive fields
  float* out;                          // the first output
  int64_t out_image, out_row, out_pixel;
  int kh;
  int64_t kernel_row;  // floats between the input rows of one receptive field
  TapRuns taps;
  const float* weight;
  int64_t c_out;
  int64_t group_in, group_out;  // channels per group of the input and of the output
};

template <int NV>
void sweep(const Sweep& w, const Exec& ex) {
  constexpr int kPixels = forward_tile_pixels(NV);
  static constexpr auto kTiles = forward_tiles<NV>(std::make_integer_sequence<int, kPixels>());
  parallel_for(ex, w.images * w.rows, [&](int64_t row0, int64_t row1) {
    for (int64_t row = row0; row < row1; ++row) {
      const int64_t image = row / w.rows, r = row % w.rows;
      const float* in_row = w.in + image * w.in_image + r * w.in_row;
      float* out_row = w.out + image * w.out_image + r * w.out_row;
      for (int64_t co = 0; co < w.c_out; co += NV * kLanes) {
        const float* group_in_row = in_row + co / w.group_out * w.group_in;
        for (int col = 0; col < w.cols; col += kPixels) {
          const ForwardTile t{group_in_row + col * w.in_pixel,
                              w.in_pixel,
                              w.kernel_row,
                              w.kh,
                              w.taps,
                              w.weight + co,
                              w.c_out,
                              out_row + col * w.out_pixel + co,
                              w.out_pixel};
          kTiles[std::min(kPixels, w.cols - col) - 1](t);
        }
      }
    }
  });
}

void run_sweep(const Sweep& w, const Exec& ex) {
  if (vectors_per_tile(static_cast<int>(w.group_out)) == 2) {
    sweep<2>(w, ex);
  } else {
    sweep<1>(w, ex);
  }
}

// The sweep of a kh x kw kernel in `groups` groups over the padded batch `in` into `out` ([n,
// out_h, out_w, c_out]): a rows x cols grid of outputs, neighbours `out_step` pixels apart in
// out, whose receptive fields start at in pixel `first_in` and lie `in_step` pixels apart.
Sweep sweep_over(const PaddedInput& in, int64_t first_in, int in_step, int rows, int cols,
                 float* out, int out_h, int out_w, int out_step, int64_t c_out, int kh, int kw,
                 int groups, const float* weight, int64_t images) {
  Sweep w;
  w.images = images;
  w.rows = rows;
  w.cols = cols;
  w.in = in.data + first_in * in.c;
  w.in_image = in.hp * in.wp * in.c;
  w.in_row = in_step * in.wp * in.c;
  w.in_pixel = in_step * in.c;
  w.out = out;
  w.out_image = int64_t{out_h} * out_w * c_out;
  w.out_row = int64_t{out_step} * out_w * c_out;
  w.out_pixel = out_step * c_out;
  w.kh = kh;
  w.kernel_row = in.wp * in.c;
  w.taps = tap_runs(kw, in.c, groups);
  w.weight = weight;
  w.c_out = c_out;
  w.group_in = in.c / groups;
  w.group_out = c_out / groups;
  return w;
}

template <int NV>
void backward_weight_pass(const Conv2dShape& s, const PaddedInput& x, const float* dy,
                          float* dweight, const Exec& ex) {
  constexpr int kRows = weight_tile_rows(NV);
  static constexpr auto kTiles = weight_tiles<NV>(std::make_integer_sequence<int, kRows>());
  const TapRuns taps = tap_runs(s.kw, s.c_in, s.groups);
  const int64_t run_blocks = (taps.run + kRows - 1) / kRows;  // tiles never straddle two runs
  const int64_t channel_blocks = s.c_out / (NV * kLanes);
  const int64_t out_rows = int64_t{s.n} * s.out_h();
  const int64_t row_bytes = sizeof(float) * s.out_w() * (s.c_out + int64_t{s.stride} * s.kh * x.c);
  const int64_t chunk_rows = std::max<int64_t>(1, kWeightChunkBytes / row_bytes);
  // Threads own whole weight tiles, so every dweight element is summed by one thread in pixel
  // order whatever the thread count.
  const int64_t tiles = s.kh * taps.runs * run_blocks * channel_blocks;
  parallel_for(ex, tiles, [&](int64_t u0, int64_t u1) {
    for (int64_t row0 = 0; row0 < out_rows; row0 += chunk_rows) {
      const int64_t row1 = std::min(out_rows, row0 + chunk_rows);
      for (int64_t u = u0; u < u1; ++u) {
        const int64_t ky = u / (taps.runs * run_blocks * channel_blocks);
        const int64_t k = u / (run_blocks * channel_blocks) % taps.runs;
        const int64_t q0 = u / channel_blocks % run_blocks * kRows;
        const int64_t co = u % channel_blocks * NV * kLanes;
        const int64_t group_first_in = co / s.group_out() * s.group_in();
        const WeightTile t{x.data + ky * x.wp * x.c + k * taps.run_step + group_first_in + q0,
                           x.hp * x.wp * x.c,
                           s.stride * x.wp * x.c,
                           int64_t{s.stride} * x.c,
                           s.out_h(),
                           s.out_w(),
                           dy + co,
                           s.c_out,
                           dweight + (ky * taps.count() + k * taps.run + q0) * s.c_out + co};
        kTiles[std::min<int64_t>(kRows, taps.run - q0) - 1](t, row0, row1);
      }
    }
  });
}

// Backward-data along one spatial dimension. dx position i = stride * t + phase - pad is fed by
// the taps phase, phase + stride, ... (`taps` of them) from dy positions t - taps + 1 .. t, so
// each phase of dx is a stride-1 convolution of dy with that phase's taps, flipped.
struct Phase {
  int taps;
  int t0;     // t of the phase's first dx position inside the image
  int count;  // dx positions of this phase
};

Phase phase_of(int size, int kernel, int stride, int pad, int phase) {
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
int dy_padding(const Conv2dShape& s) {
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
// g x group_in + i and output channel co = g x group_out + j of the same group g. The transposed
// convolution has the same groups, with group_out input and group_in output channels each.
void phase_kernel(const Conv2dShape& s, const float* weight, int a, int taps_a, int b, int taps_b,
                  float* kernel) {
  const int gi = s.group_in(), go = s.group_out();
  for (int m = 0; m < taps_a; ++m) {
    for (int n = 0; n < taps_b; ++n) {
      const int ky = a + s.stride * (taps_a - 1 - m), kx = b + s.stride * (taps_b - 1 - n);
      const float* src = weight + (int64_t{ky} * s.kw + kx) * gi * s.c_out;
      float* dst = kernel + (int64_t{m} * taps_b + n) * go * s.c_in;
      for (int ci = 0; ci < s.c_in; ++ci) {
        const float* column = src + int64_t{ci % gi} * s.c_out + ci / gi * go;
        for (int j = 0; j < go; ++j) dst[int64_t{j} * s.c_in + ci] = column[j];
      }
    }
  }
}

int input_chunk(const Conv2dShape& s) { return images_per_chunk(s.n, s.h, s.w, s.c_in, s.pad_h); }

int dy_chunk(const Conv2dShape& s) {
  return images_per_chunk(s.n, s.out_h(), s.out_w(), s.c_out, dy_padding(s));
}

size_t forward_workspace_floats(const Conv2dShape& s) {
  return padded_floats(input_chunk(s), s.h, s.w, s.c_in, s.pad_h);
}

size_t backward_data_workspace_floats(const Conv2dShape& s) {
  return AlignedBuffer::round_up(s.patch() * s.c_out) +
         padded_floats(dy_chunk(s), s.out_h(), s.out_w(), s.c_out, dy_padding(s));
}

}  // namespace

bool conv2d_direct_suits(const Conv2dShape& s) {
  return s.pad_h == s.pad_w && s.group_out() % kLanes == 0 && narrow_groups(s) &&
         s.group_in() <= kMaxDirectInChannels && !s.is_pointwise();
}

bool conv2d_direct_backward_weight_suits(const Conv2dShape& s) {
  if (s.pad_h != s.pad_w || s.group_out() % kLanes != 0 || !narrow_groups(s)) return false;
  // A stride-1 kernel past 1x1, whatever the channels: im2col + GEMM reads and writes all of
  // dweight again for every im2col tile (3x3 512 -> 512 at 7x7, b32: 20-28 -> 17-21 ms; at
  // stride 2 the GEMM stays ~5% ahead).
  if (s.kh * s.kw > 1 && s.stride == 1) return true;
  // A pointwise layer's GEMM packs x^T and dy; reading them in place wins while dy is the
  // narrower (ResNet-50's 256 -> 64 reductions: 21 -> 14 ms), not when it widens (64 -> 256 ties,
  // 256 -> 1024 loses 7%; bench_conv).
  return s.group_in() <= kMaxDirectInChannels && (!s.is_pointwise() || s.c_out <= s.c_in);
}

bool conv2d_direct_backward_data_suits(const Conv2dShape& s) {
  return conv2d_direct_suits(s) && s.group_in() % kLanes == 0;
}

size_t conv2d_direct_workspace_floats(const Conv2dShape& s) {
  size_t floats = 0;
  if (conv2d_direct_suits(s) || conv2d_direct_backward_weight_suits(s)) {
    floats = forward_workspace_floats(s);  // the padded input, as the backward-weight pads it too
  }
  if (conv2d_direct_backward_data_suits(s)) {
    floats = std::max(floats, backward_data_workspace_floats(s));
  }
  return floats;
}

void conv2d_direct_forward(const Conv2dShape& s, const float* x, const float* weight, float* y,
                           float* workspace, const Exec& ex) {
  const int64_t x_image = int64_t{s.h} * s.w * s.c_in;
  const int64_t y_image = int64_t{s.out_h()} * s.out_w() * s.c_out;
  for_each_chunk(s.n, input_chunk(s), [&](int n0, int images) {
    const PaddedInput in =
        pad_input(x + n0 * x_image, images, s.h, s.w, s.c_in, s.pad_h, workspace, ex);
    run_sweep(sweep_over(in, 0, s.stride, s.out_h(), s.out_w(), y + n0 * y_image, s.out_h(),
                         s.out_w(), 1, s.c_out, s.kh, s.kw, s.groups, weight, images),
              ex);
  });
}

void conv2d_direct_backward_data(const Conv2dShape& s, const float* dy, const float* weight,
                                 float* dx, float* workspace, const Exec& ex) {
  const int pad = dy_padding(s);
  if (s.kh < s.stride || s.kw < s.stride) {  // some phases have no taps: their dx stays 0
    const int64_t dx_size = int64_t{s.n} * s.h * s.w * s.c_in;
    parallel_for(
        ex, dx_size, [&](int64_t b, int64_t e) { std::memset(dx + b, 0, sizeof(float) * (e - b)); },
        1 << 16);
  }
  // Each phase's kernel, one after the other at the workspace's start; then every chunk of
  // images sweeps each phase.
  float* kernel = workspace;
  for_each_phase(s, [&](int a, const Phase& rows, int b, const Phase& cols) {
    phase_kernel(s, weight, a, rows.taps, b, cols.taps, kernel);
    kernel += int64_t{rows.taps} * cols.taps * s.group_out() * s.c_in;
  });
  float* padded = workspace + AlignedBuffer::round_up(s.patch() * s.c_out);
  const int64_t dy_image = int64_t{s.out_h()} * s.out_w() * s.c_out;
  const int64_t dx_image = int64_t{s.h} * s.w * s.c_in;
  for_each_chunk(s.n, dy_chunk(s), [&](int n0, int images) {
    const PaddedInput in =
        pad_input(dy + n0 * dy_image, images, s.out_h(), s.out_w(), s.c_out, pad, padded, ex);
    const float* kernel = workspace;
    for_each_phase(s, [&](int a, const Phase& rows, int b, const Phase& cols) {
      // The phase's first dx position and the first dy row and column of its window.
      const int64_t first_in =
          (rows.t0 - (rows.taps - 1) + pad) * in.wp + cols.t0 - (cols.taps - 1) + pad;
      const int64_t first_out =
          int64_t{s.stride * rows.t0 + a - s.pad_h} * s.w + s.stride * cols.t0 + b - s.pad_w;
      run_sweep(sweep_over(in, first_in, 1, rows.count, cols.count,
                           dx + n0 * dx_image + first_out * s.c_in, s.h, s.w, s.stride, s.c_in,
                           rows.taps, cols.taps, s.groups, kernel, images),
                ex);
      kernel += int64_t{rows.taps} * cols.taps * s.group_out() * s.c_in;
    });
  });
}

void conv2d_direct_backward_weight(const Conv2dShape& s, const float* x, const float* dy,
                                   float* dweight, float* workspace, const Exec& ex) {
  const int64_t x_image = int64_t{s.h} * s.w * s.c_in;
  const int64_t dy_image = int64_t{s.out_h()} * s.out_w() * s.c_out;
  for_each_chunk(s.n, input_chunk(s), [&](int n0, int images) {
    Conv2dShape chunk = s;
    chunk.n = images;
    const PaddedInput padded =
        pad_input(x + n0 * x_image, images, s.h, s.w, s.c_in, s.pad_h, workspace, ex);
    if (vectors_per_tile(s.group_out()) == 2) {
      backward_weight_pass<2>(chunk, padded, dy + n0 * dy_image, dweight, ex);
    } else {
      backward_weight_pass<1>(chunk, padded, dy + n0 * dy_image, dweight, ex);
    }
  });
}

}  // namespace xtrain::kernels
