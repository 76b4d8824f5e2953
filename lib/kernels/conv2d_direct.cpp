#include "lib/kernels/conv2d_direct.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "lib/base/check.h"
#include "lib/kernels/bf16_pairs.h"
#include "lib/kernels/prefetch.h"
#include "lib/kernels/simd.h"
#include "lib/kernels/transpose.h"
#include "lib/tensor/aligned_buffer.h"
#include "lib/tensor/bfloat16.h"

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
// past this many input channels the packed GEMM of conv2d.cpp is faster (bench_conv). In bfloat16
// the forward and backward-data kernels win up to twice as many (max_direct_in_channels).
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

// An NHWC batch with its zero padding materialized: [n, hp, wp, c] of float32 or bfloat16, `pad`
// zero pixels on every side.
template <typename In>
struct PaddedInput {
  const In* data;
  int64_t hp, wp, c;
  int pad;
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

// out = x [n, h, w, c] with `pad` zero pixels on every side: put_row(source row, destination
// row) writes each image row's w pixels.
template <typename S, typename T, typename PutRow>
void pad_rows(const S* x, int n, int h, int w, int c, int pad, T* out, PutRow&& put_row,
              const Exec& ex) {
  const int64_t hp = h + 2 * pad, wp = w + 2 * pad;
  parallel_for(
      ex, n * hp,
      [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          T* dst = out + r * wp * c;
          const int64_t image = r / hp, ih = r % hp - pad;
          if (ih < 0 || ih >= h) {
            std::memset(dst, 0, sizeof(T) * wp * c);
            continue;
          }
          std::memset(dst, 0, sizeof(T) * pad * c);
          put_row(x + (image * h + ih) * w * c, dst + pad * c);
          std::memset(dst + (pad + w) * c, 0, sizeof(T) * pad * c);
        }
      },
      16);
}

// x [n, h, w, c] (float32 or bfloat16) as float32 with `pad` zero pixels on every side, in out
// (x itself when it is float32 and pad is 0).
PaddedInput<float> pad_input(ConstElements x, int n, int h, int w, int c, int pad, float* out,
                             const Exec& ex) {
  const int64_t row = int64_t{w} * c;
  if (x.type == ElementType::kBFloat16) {
    pad_rows(
        x.bf16(), n, h, w, c, pad, out,
        [&](const BFloat16* src, float* dst) {
          for (int64_t i = 0; i < row; ++i) dst[i] = to_float(src[i]);
        },
        ex);
  } else if (pad == 0) {
    return {x.f32(), h, w, c, 0};
  } else {
    pad_rows(
        x.f32(), n, h, w, c, pad, out,
        [&](const float* src, float* dst) { std::memcpy(dst, src, sizeof(float) * row); }, ex);
  }
  return {out, h + 2 * pad, w + 2 * pad, c, pad};
}

// The register tiles of both kernels: R rows of NV vectors, rows `ld` floats apart in memory.
// Every loop over a tile is unrolled, so the tile lives in registers.
template <int R, int NV>
inline void load_tile(Vec (&acc)[R][NV], const float* src, int64_t ld) {
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[r][v] = simd::load(src + r * ld + v * kLanes);
  }
}

// Rows [Begin, End) of a tile to dst, rows `ld` elements apart.
template <int Begin, int End, int R, int NV>
inline void store_rows(const Vec (&acc)[R][NV], float* dst, int64_t ld) {
#pragma GCC unroll 16
  for (int r = Begin; r < End; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) simd::store(dst + (r - Begin) * ld + v * kLanes, acc[r][v]);
  }
}

#if defined(__AVX512BF16__)
// The rows rounded to bfloat16, for an output a bfloat16 plan stores so.
template <int Begin, int End, int R, int NV>
inline void store_rows(const Vec (&acc)[R][NV], uint16_t* dst, int64_t ld) {
#pragma GCC unroll 16
  for (int r = Begin; r < End; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) store_rounded(dst + (r - Begin) * ld + v * kLanes, acc[r][v]);
  }
}
#endif

// All rows of a tile to dst.
template <int R, int NV, typename Out>
inline void store_tile(const Vec (&acc)[R][NV], Out* dst, int64_t ld) {
  store_rows<0, R>(acc, dst, ld);
}

// Every row of the tile = bias[v lanes] (NV vectors), or zeros without a bias.
template <int R, int NV>
inline void start_tile(Vec (&acc)[R][NV], const float* bias) {
  Vec start[NV];
#pragma GCC unroll 2
  for (int v = 0; v < NV; ++v) {
    start[v] = bias != nullptr ? simd::load(bias + v * kLanes) : simd::zero();
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) acc[r][v] = start[v];
  }
}

// The rows of an R-row register tile, as a mask of bits (bit r: row r): the rank updates below
// take the rows they update as a compile-time mask, so that the unrolled loops keep only those.
constexpr uint32_t all_rows(int rows) { return (uint32_t{1} << rows) - 1; }

// Weight rows per kernel row and output channel of a kernel whose rows hold `taps` taps, fed
// `step` at a time (a Math's kStep): in bfloat16 pairs, an odd count's last one completed by a
// zero.
int64_t kernel_row_weights(int64_t taps, int step) { return (taps + step - 1) / step; }

// acc[r][v] += *at(r) * b[v lanes] for the tile's rows r in Mask: a rank-1 update, the whole
// inner loop of both kernels (a broadcast per row, a vector load per column block, FMAs).
template <uint32_t Mask, int R, int NV, typename At>
inline void rank1_update(Vec (&acc)[R][NV], At&& at, const float* b) {
  Vec bv[NV];
#pragma GCC unroll 2
  for (int v = 0; v < NV; ++v) bv[v] = simd::load(b + v * kLanes);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    if ((Mask >> r & 1) == 0) continue;
    const Vec av = simd::broadcast(at(r));
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) acc[r][v] = simd::fma(av, bv[v], acc[r][v]);
  }
}

// What a tile multiplies: float32 values one by one (rank-1 updates, one FMA per weight row and
// vector), or bfloat16 values in pairs of neighbouring taps (rank-2 updates, one vdpbf16ps per
// pair of weight rows and vector: twice the multiply-adds per instruction). kStep input elements
// feed one Weight row.
struct Float32Math {
  using In = float;
  using Weight = float;
  static constexpr int kStep = 1;
  // The tile's rows in Mask += their taps' inputs (*at(r)) times a weight row (b).
  template <uint32_t Mask, int R, int NV, typename At>
  static void update(Vec (&acc)[R][NV], At&& at, const Weight* b) {
    rank1_update<Mask>(acc, at, b);
  }

  // The backward-weight pass sums over output pixels, one at a time: the tile's taps of one
  // pixel (a[r]) times its dy (b).
  using PixelIn = float;
  using PixelGrad = float;
  static constexpr int kPixels = 1;
  template <int R, int NV>
  static void pixel_update(Vec (&acc)[R][NV], const PixelIn* a, const PixelGrad* b) {
    rank1_update<all_rows(R)>(
        acc, [&](int r) { return a + r; }, b);
  }
};

#if defined(__AVX512BF16__)
// In bfloat16 a kernel row's taps pair up along their runs in the padded input (kw x c_in
// contiguous taps ungrouped; a group's even count of channels per kernel column grouped), and
// the weights are paired to match: pair q of a kernel row's taps is one uint32 per output channel
// (the even tap in the low half). An odd run (a stem's 7 x 3 taps) ends with a pair whose second
// tap is the element after the run, times a zero weight: finite inputs add nothing (an
// infinity or NaN there would make one more output NaN than in float32). Pairing within pixels
// instead would pad a 3-channel stem's pixels to 4 channels, a quarter of its products zeros.
// acc[r][v] += the dot products of pair_of(r) (a bfloat16 pair per row, broadcast) and bv[v] (NV
// vectors of pairs) for the tile's rows r in Mask: a rank-2 update, one vdpbf16ps per row and
// vector.
template <uint32_t Mask, int R, int NV, typename PairOf>
inline void rank2_update(Vec (&acc)[R][NV], PairOf&& pair_of, const __m512bh (&bv)[NV]) {
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    if ((Mask >> r & 1) == 0) continue;
    const __m512bh av = (__m512bh)_mm512_set1_epi32(static_cast<int>(pair_of(r)));
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_dpbf16_ps(acc[r][v], av, bv[v]);
  }
}

// The same with bv's pairs read from b.
template <uint32_t Mask, int R, int NV, typename PairOf>
inline void rank2_update(Vec (&acc)[R][NV], PairOf&& pair_of, const uint32_t* b) {
  __m512bh bv[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) bv[v] = (__m512bh)_mm512_loadu_si512(b + v * kLanes);
  rank2_update<Mask>(acc, pair_of, bv);
}

struct BFloat16Math {
  using In = uint16_t;
  using Weight = uint32_t;
  static constexpr int kStep = 2;
  template <uint32_t Mask, int R, int NV, typename At>
  static void update(Vec (&acc)[R][NV], At&& at, const Weight* b) {
    rank2_update<Mask>(
        acc,
        [&](int r) {
          uint32_t pair;  // two neighbouring taps of row r's receptive field
          std::memcpy(&pair, at(r), sizeof pair);
          return pair;
        },
        b);
  }

  // The backward-weight pass sums over output pixels in pairs: a[r] pairs a tap's input of two
  // neighbouring output pixels (pair_pixels), b their dy, channel by channel (pair_dy).
  using PixelIn = uint32_t;
  using PixelGrad = uint32_t;
  static constexpr int kPixels = 2;
  template <int R, int NV>
  static void pixel_update(Vec (&acc)[R][NV], const PixelIn* a, const PixelGrad* b) {
    rank2_update<all_rows(R)>(
        acc, [&](int r) { return a[r]; }, b);
  }
};

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

// Floats of scratch a paired kernel of kh x kw taps over c channels into c_out takes.
size_t paired_kernel_floats(int kh, int kw, int64_t c, int64_t c_out) {
  return AlignedBuffer::round_up(kh * kernel_row_weights(kw * c, 2) * c_out);
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
#endif

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

// One forward tile: `Pixels` output pixels along each of OutRows output rows (two where a map is
// at most half a tile wide, so that each weight vector loaded still feeds a whole tile of
// pixels), times NV vectors of output channels of one group, through that group's taps, written
// as Out (float, or bfloat16 bits). Products with the padding are skipped, as zeros: the kernel
// rows whose taps fall in the top or bottom padding, and at the kernel columns where the tile's
// first or last pixel reads the left or right padding, that pixel's (a 3x3 kernel over a 7x7 map
// pads 18% of its taps, half of them in columns).
template <typename Math, typename Out>
struct ForwardTile {
  // Per output row of the tile:
  const typename Math::In* in[2];  // padded input at the first pixel's receptive field (ky = kx =
                                   // 0, the group's first channel)
  Out* out[2];                     // output at the first pixel, the tile's first channel
  int ky_begin[2], ky_end[2];      // the kernel rows whose taps read the image
  int64_t pixel_step;              // elements between neighbouring pixels' receptive fields
  int64_t row_step;                // elements between padded input rows
  TapRuns taps;
  int64_t column_taps;  // taps of one kernel column in a run: a pixel's channels of the group
  // Bit kx: at kernel column kx the tile's first (last) pixel reads the padding.
  uint32_t first_in_padding, last_in_padding;
  const typename Math::Weight* weight;  // weight at the tile's first output channel
  const float* bias;                    // at the tile's first output channel; null: none
  int64_t c_out;
  int64_t out_step;  // elements between the tile's output pixels along a row
};

// The tile rows of pixel p of each of the tile's OutRows output rows of `Pixels` pixels.
template <int OutRows, int Pixels>
constexpr uint32_t pixel_rows(int p) {
  return OutRows == 1 ? uint32_t{1} << p : (uint32_t{1} << p) | (uint32_t{1} << (Pixels + p));
}

// acc's rows in the mask Mask += the products of taps [q0, q1) of a run whose first taps, per
// output row of the tile, are at in[], with the run's weights at w.
template <uint32_t Mask, int Pixels, typename Math, typename Out, int R, int NV>
inline void add_taps(const ForwardTile<Math, Out>& t, Vec (&acc)[R][NV],
                     const typename Math::In* const (&in)[2], int64_t q0, int64_t q1,
                     const typename Math::Weight* w) {
  constexpr int kStep = Math::kStep;
  for (int64_t q = q0; q < q1; q += kStep) {
    Math::template update<Mask>(
        acc, [&](int r) { return in[r / Pixels] + q + r % Pixels * t.pixel_step; },
        w + q / kStep * t.c_out);
  }
}

// acc's rows in Mask (tile row r: pixel r % Pixels of output row r / Pixels of OutRows) += the
// products of kernel row ky, without those of the first or last pixel where it reads the padding.
template <uint32_t Mask, int OutRows, int Pixels, typename Math, typename Out, int R, int NV>
inline void add_kernel_row(const ForwardTile<Math, Out>& t, Vec (&acc)[R][NV], int ky) {
  constexpr int kStep = Math::kStep;
  constexpr uint32_t kNoFirst = Mask & ~pixel_rows<OutRows, Pixels>(0);
  constexpr uint32_t kNoLast = Mask & ~pixel_rows<OutRows, Pixels>(Pixels - 1);
  const int64_t columns_per_run = t.taps.run / t.column_taps;
  const typename Math::Weight* w =
      t.weight + ky * kernel_row_weights(t.taps.count(), kStep) * t.c_out;
  for (int64_t k = 0; k < t.taps.runs; ++k, w += t.taps.run / kStep * t.c_out) {
    const int64_t first_tap = ky * t.row_step + k * t.taps.run_step;
    const typename Math::In* const in[2] = {t.in[0] + first_tap,
                                            OutRows == 2 ? t.in[1] + first_tap : nullptr};
    if ((t.first_in_padding | t.last_in_padding) == 0) {
      add_taps<Mask, Pixels>(t, acc, in, 0, t.taps.run, w);
      continue;
    }
    for (int64_t j = 0; j < columns_per_run; ++j) {
      const int64_t kx = k * columns_per_run + j;
      const int64_t q0 = j * t.column_taps, q1 = q0 + t.column_taps;
      const bool first = t.first_in_padding >> kx & 1, last = t.last_in_padding >> kx & 1;
      if (first && last) {
        add_taps<kNoFirst & kNoLast, Pixels>(t, acc, in, q0, q1, w);
      } else if (first) {
        add_taps<kNoFirst, Pixels>(t, acc, in, q0, q1, w);
      } else if (last) {
        add_taps<kNoLast, Pixels>(t, acc, in, q0, q1, w);
      } else {
        add_taps<Mask, Pixels>(t, acc, in, q0, q1, w);
      }
    }
  }
}

template <typename Math, typename Out, int OutRows, int Pixels, int NV>
void forward_tile(const ForwardTile<Math, Out>& t) {
  constexpr int R = OutRows * Pixels;
  Vec acc[R][NV];
  start_tile(acc, t.bias);
  if constexpr (OutRows == 1) {
    for (int ky = t.ky_begin[0]; ky < t.ky_end[0]; ++ky) {
      add_kernel_row<all_rows(R), OutRows, Pixels>(t, acc, ky);
    }
    store_tile(acc, t.out[0], t.out_step);
  } else {
    static_assert(OutRows == 2, "a tile spans one or two output rows");
    constexpr uint32_t kTop = all_rows(Pixels), kBottom = all_rows(R) & ~kTop;
    const int first = std::min(t.ky_begin[0], t.ky_begin[1]);
    const int last = std::max(t.ky_end[0], t.ky_end[1]);
    for (int ky = first; ky < last; ++ky) {
      const bool top = t.ky_begin[0] <= ky && ky < t.ky_end[0];
      const bool bottom = t.ky_begin[1] <= ky && ky < t.ky_end[1];
      if (top && bottom) {
        add_kernel_row<kTop | kBottom, OutRows, Pixels>(t, acc, ky);
      } else if (top) {
        add_kernel_row<kTop, OutRows, Pixels>(t, acc, ky);
      } else if (bottom) {
        add_kernel_row<kBottom, OutRows, Pixels>(t, acc, ky);
      }
    }
    store_rows<0, Pixels>(acc, t.out[0], t.out_step);
    store_rows<Pixels, R>(acc, t.out[1], t.out_step);
  }
}

// One backward-weight tile: `Rows` consecutive taps of one kernel row (weight rows) times NV
// vectors of output channels, summed over output pixels [pixel rows row0, row1) in order and
// added to what dweight holds. The output rows whose taps of this kernel row read the top or
// bottom padding are skipped: their products are zeros.
template <typename Math>
struct WeightTile {
  const typename Math::PixelIn* in;  // padded input of image 0 at (ky, first tap of the tile)
  int64_t image_step;                // elements between padded images
  int64_t row_step;    // elements between the receptive fields of neighbouring output rows
  int64_t pixel_step;  // ... of neighbouring output pixels
  int out_h, out_w;
  int ky, stride;                      // the tile's kernel row, the rows between receptive fields
  int64_t data_begin, data_end;        // the padded input rows that hold the image
  const typename Math::PixelGrad* dy;  // dy at the tile's first output channel
  int64_t c_out;
  float* dweight;  // dweight at the tile's first row and channel
};

template <typename Math, int Rows, int NV>
void weight_tile(const WeightTile<Math>& t, int64_t row0, int64_t row1) {
  constexpr int kPixels = Math::kPixels;
  const int64_t steps = (t.out_w + kPixels - 1) / kPixels;  // per output row
  Vec acc[Rows][NV];
  load_tile(acc, t.dweight, t.c_out);
  for (int64_t row = row0; row < row1; ++row) {
    const int64_t input_row = row % t.out_h * t.stride + t.ky;  // in the padded input
    if (input_row < t.data_begin || input_row >= t.data_end) continue;
    const typename Math::PixelIn* in =
        t.in + row / t.out_h * t.image_step + row % t.out_h * t.row_step;
    const typename Math::PixelGrad* dy = t.dy + row * steps * t.c_out;
    for (int64_t u = 0; u < steps; ++u) {
      Math::pixel_update(acc, in + u * kPixels * t.pixel_step, dy + u * t.c_out);
    }
  }
  store_tile(acc, t.dweight, t.c_out);
}

// Tile functions for every partial size 1..N, indexed by size - 1: a row of output pixels or a
// kernel row's taps rarely divides evenly, and each size needs its own register tile.
template <typename Math, typename Out, int OutRows, int NV, int... I>
constexpr auto forward_tiles(std::integer_sequence<int, I...>) {
  return std::array<void (*)(const ForwardTile<Math, Out>&), sizeof...(I)>{
      &forward_tile<Math, Out, OutRows, I + 1, NV>...};
}
template <typename Math, int NV, int... I>
constexpr auto weight_tiles(std::integer_sequence<int, I...>) {
  return std::array<void (*)(const WeightTile<Math>&, int64_t, int64_t), sizeof...(I)>{
      &weight_tile<Math, I + 1, NV>...};
}

// A grid of forward tiles: per image, `rows` x `cols` outputs, with the steps between their
// receptive fields in the padded input and between the outputs themselves. A plain convolution
// sweeps its whole output; a strided one's backward-data sweeps one phase of dx at a time.
template <typename Math, typename Out>
struct Sweep {
  int64_t images;
  int rows, cols;
  const typename Math::In* in;         // the first output's receptive field
  int64_t in_image, in_row, in_pixel;  // elements between receptive fields
  Out* out;                            // the first output
  int64_t out_image, out_row, out_pixel;
  int kh;
  int64_t kernel_row;  // elements between the input rows of one receptive field
  // The padded input row and column of the first output's receptive field, the rows (columns)
  // between those of neighbouring output rows (columns), and the rows [data_begin, data_end) and
  // columns [data_left, data_right) that hold the image.
  int64_t first_top, first_left, in_step, data_begin, data_end, data_left, data_right;
  int kw;
  TapRuns taps;
  const typename Math::Weight* weight;
  const float* bias;  // null: none
  int64_t c_out;
  int64_t group_in, group_out;  // channels per group of the input and of the output
};

// Bit kx: the receptive field of output column col reads the padding at kernel column kx. None
// for kernels wider than the bits, nor where a kernel column's taps are odd in bfloat16: pairs
// then straddle kernel columns (a stem's 3 channels).
template <typename Math, typename Out>
uint32_t columns_in_padding(const Sweep<Math, Out>& w, int col) {
  if (w.kw > 32 || w.group_in % Math::kStep != 0) return 0;
  const int64_t left = w.first_left + col * w.in_step;
  uint32_t bits = 0;
  for (int kx = 0; kx < w.kw; ++kx) {
    if (left + kx < w.data_left || left + kx >= w.data_right) bits |= uint32_t{1} << kx;
  }
  return bits;
}

template <typename Math, typename Out, int NV>
void sweep(const Sweep<Math, Out>& w, const Exec& ex) {
  constexpr int kPixels = forward_tile_pixels(NV);
  static constexpr auto kRowTiles =
      forward_tiles<Math, Out, 1, NV>(std::make_integer_sequence<int, kPixels>());
  static constexpr auto kTwoRowTiles =
      forward_tiles<Math, Out, 2, NV>(std::make_integer_sequence<int, kPixels / 2>());
  // Rows of the whole batch's grid per tile: two where they fit in one (the second row may be
  // the next image's first).
  const int tile_rows = 2 * w.cols <= kPixels ? 2 : 1;
  const int64_t grid_rows = w.images * w.rows;
  // A two-row tile's pixels are its rows' all.
  const uint32_t row_first_in_padding = columns_in_padding(w, 0);
  const uint32_t row_last_in_padding = columns_in_padding(w, w.cols - 1);
  parallel_for(ex, (grid_rows + tile_rows - 1) / tile_rows, [&](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t first_row = u * tile_rows;
      const int rows = static_cast<int>(std::min<int64_t>(tile_rows, grid_rows - first_row));
      ForwardTile<Math, Out> t{};
      const typename Math::In* in[2] = {};  // each output row's first receptive field
      Out* out[2] = {};                     // and first output
      for (int j = 0; j < rows; ++j) {
        const int64_t image = (first_row + j) / w.rows, r = (first_row + j) % w.rows;
        const int64_t top = w.first_top + r * w.in_step;
        in[j] = w.in + image * w.in_image + r * w.in_row;
        out[j] = w.out + image * w.out_image + r * w.out_row;
        t.ky_begin[j] = static_cast<int>(std::clamp<int64_t>(w.data_begin - top, 0, w.kh));
        t.ky_end[j] = static_cast<int>(std::clamp<int64_t>(w.data_end - top, 0, w.kh));
      }
      t.pixel_step = w.in_pixel;
      t.row_step = w.kernel_row;
      t.taps = w.taps;
      t.column_taps = w.group_in;
      t.c_out = w.c_out;
      t.out_step = w.out_pixel;
      for (int64_t co = 0; co < w.c_out; co += NV * kLanes) {
        const int64_t group_first_in = co / w.group_out * w.group_in;
        t.weight = w.weight + co;
        t.bias = w.bias != nullptr ? w.bias + co : nullptr;
        if (rows == 2) {
          for (int j = 0; j < 2; ++j) {
            t.in[j] = in[j] + group_first_in;
            t.out[j] = out[j] + co;
          }
          t.first_in_padding = row_first_in_padding;
          t.last_in_padding = row_last_in_padding;
          kTwoRowTiles[w.cols - 1](t);
          continue;
        }
        for (int col = 0; col < w.cols; col += kPixels) {
          const int pixels = std::min(kPixels, w.cols - col);
          t.in[0] = in[0] + group_first_in + col * w.in_pixel;
          t.out[0] = out[0] + col * w.out_pixel + co;
          t.first_in_padding = columns_in_padding(w, col);
          t.last_in_padding = columns_in_padding(w, col + pixels - 1);
          kRowTiles[pixels - 1](t);
        }
      }
    }
  });
}

template <typename Math, typename Out>
void run_sweep(const Sweep<Math, Out>& w, const Exec& ex) {
  if (vectors_per_tile(static_cast<int>(w.group_out)) == 2) {
    sweep<Math, Out, 2>(w, ex);
  } else {
    sweep<Math, Out, 1>(w, ex);
  }
}

// The sweep of a kh x kw kernel in `groups` groups (plus bias, when not null) over the padded
// batch `in` into `out` ([n, out_h, out_w, c_out]): a rows x cols grid of outputs, neighbours
// `out_step` pixels apart in out, whose receptive fields start at in's row `first_row` and
// column `first_col` and lie `in_step` pixels apart.
template <typename Math, typename Out>
Sweep<Math, Out> sweep_over(const PaddedInput<typename Math::In>& in, int64_t first_row,
                            int64_t first_col, int in_step, int rows, int cols, Out* out, int out_h,
                            int out_w, int out_step, int64_t c_out, int kh, int kw, int groups,
                            const typename Math::Weight* weight, const float* bias,
                            int64_t images) {
  Sweep<Math, Out> w;
  w.images = images;
  w.rows = rows;
  w.cols = cols;
  w.in = in.data + (first_row * in.wp + first_col) * in.c;
  w.in_image = in.hp * in.wp * in.c;
  w.in_row = in_step * in.wp * in.c;
  w.in_pixel = in_step * in.c;
  w.out = out;
  w.out_image = int64_t{out_h} * out_w * c_out;
  w.out_row = int64_t{out_step} * out_w * c_out;
  w.out_pixel = out_step * c_out;
  w.kh = kh;
  w.kernel_row = in.wp * in.c;
  w.first_top = first_row;
  w.first_left = first_col;
  w.in_step = in_step;
  w.data_begin = in.pad;
  w.data_end = in.hp - in.pad;
  w.data_left = in.pad;
  w.data_right = in.wp - in.pad;
  w.kw = kw;
  w.taps = tap_runs(kw, in.c, groups);
  w.weight = weight;
  w.bias = bias;
  w.c_out = c_out;
  w.group_in = in.c / groups;
  w.group_out = c_out / groups;
  return w;
}

// Rows of output pixels per backward-weight chunk, each row's dy and input `row_bytes`: a chunk's
// tiles all sweep it while it is in L2.
int64_t weight_chunk_rows(int64_t row_bytes) {
  return std::max<int64_t>(1, kWeightChunkBytes / row_bytes);
}

// dweight += the pass over a chunk of s.n images: x is the chunk's padded input (as PixelIn), dy
// its upstream gradient (as PixelGrad).
template <typename Math, int NV>
void backward_weight_pass(const Conv2dShape& s, const PaddedInput<typename Math::PixelIn>& x,
                          const typename Math::PixelGrad* dy, float* dweight, const Exec& ex) {
  constexpr int kRows = weight_tile_rows(NV);
  static constexpr auto kTiles = weight_tiles<Math, NV>(std::make_integer_sequence<int, kRows>());
  const TapRuns taps = tap_runs(s.kw, s.c_in, s.groups);
  const int64_t run_blocks = (taps.run + kRows - 1) / kRows;  // tiles never straddle two runs
  const int64_t channel_blocks = s.c_out / (NV * kLanes);
  const int64_t out_rows = int64_t{s.n} * s.out_h();
  const int64_t row_bytes = sizeof(float) * s.out_w() * (s.c_out + int64_t{s.stride} * s.kh * x.c);
  const int64_t chunk_rows = weight_chunk_rows(row_bytes);
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
        const WeightTile<Math> t{x.data + ky * x.wp * x.c + k * taps.run_step + group_first_in + q0,
                                 x.hp * x.wp * x.c,
                                 s.stride * x.wp * x.c,
                                 int64_t{s.stride} * x.c,
                                 s.out_h(),
                                 s.out_w(),
                                 static_cast<int>(ky),
                                 s.stride,
                                 x.pad,
                                 x.hp - x.pad,
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

// A band of `rows` input channels of one group of a phase tap's weights (src: at the group's
// first output channel, rows ld_src apart) into that tap of a phase kernel (dst: at the band's
// first input channel, rows ld_dst apart): transposed, in float32 ...
void put_transposed(const float* src, int rows, int go, int64_t ld_src, float* dst,
                    int64_t ld_dst) {
  transpose_matrix(rows, go, src, ld_src, dst, ld_dst);
}

#if defined(__AVX512BF16__)
// ... or rounded to bfloat16 pairs of neighbouring output channels (row q pairs channels 2q and
// 2q + 1: BFloat16Math's weights), without a float32 kernel first: blocks of 16 input channels
// by up to 256 pairs are rounded into a buffer on the stack, then transposed.
void put_transposed(const float* src, int rows, int go, int64_t ld_src, uint32_t* dst,
                    int64_t ld_dst) {
  constexpr int kRows = 16, kPairs = 256;
  uint32_t block[kRows * kPairs];
  const int pairs = go / 2;
  for (int r0 = 0; r0 < rows; r0 += kRows) {
    const int block_rows = std::min(kRows, rows - r0);
    for (int p0 = 0; p0 < pairs; p0 += kPairs) {
      const int block_pairs = std::min(kPairs, pairs - p0);
      for (int r = 0; r < block_rows; ++r) {
        convert_to_bf16(src + (r0 + r) * ld_src + 2 * p0, 2 * block_pairs,
                        reinterpret_cast<uint16_t*>(block + r * block_pairs));
      }
      transpose_matrix(block_rows, block_pairs, block, block_pairs, dst + p0 * ld_dst + r0, ld_dst);
    }
  }
}
#endif

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
          put_transposed(src + int64_t{i0} * s.c_out + int64_t{g} * go, i1 - i0, go, s.c_out,
                         dst + int64_t{g} * gi + i0, s.c_in);
        }
      },
      1);
}

int input_chunk(const Conv2dShape& s) { return images_per_chunk(s.n, s.h, s.w, s.c_in, s.pad_h); }

int dy_chunk(const Conv2dShape& s) {
  return images_per_chunk(s.n, s.out_h(), s.out_w(), s.c_out, dy_padding(s));
}

size_t forward_workspace_floats(const Conv2dShape& s) {
  return padded_floats(input_chunk(s), s.h, s.w, s.c_in, s.pad_h);
}

size_t phase_kernels_floats(const Conv2dShape& s) {
  return AlignedBuffer::round_up(s.patch() * s.c_out);
}

size_t backward_data_workspace_floats(const Conv2dShape& s) {
  return phase_kernels_floats(s) +
         padded_floats(dy_chunk(s), s.out_h(), s.out_w(), s.c_out, dy_padding(s));
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

// The backward-data pass over dy, padded by pad_dy (float32 or bfloat16 in `in`), with the
// phases' kernels one after the other at `kernel`, `per_tap` Weights apart per tap.
template <typename Math, typename Out>
void sweep_phases(const Conv2dShape& s, const PaddedInput<typename Math::In>& in, int pad,
                  const typename Math::Weight* kernel, int64_t per_tap, Out* dx, int images,
                  const Exec& ex) {
  for_each_phase(s, [&](int a, const Phase& rows, int b, const Phase& cols) {
    // The phase's first dx position and the first dy row and column of its window.
    const int64_t first_row = rows.t0 - (rows.taps - 1) + pad;
    const int64_t first_col = cols.t0 - (cols.taps - 1) + pad;
    const int64_t first_out =
        int64_t{s.stride * rows.t0 + a - s.pad_h} * s.w + s.stride * cols.t0 + b - s.pad_w;
    run_sweep(sweep_over<Math, Out>(in, first_row, first_col, 1, rows.count, cols.count,
                                    dx + first_out * s.c_in, s.h, s.w, s.stride, s.c_in, rows.taps,
                                    cols.taps, s.groups, kernel, nullptr, images),
              ex);
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

#if defined(__AVX512BF16__)
// The bfloat16 forward and backward-data passes copy their input (the copy is the rounding), a
// chunk of images at a time.
size_t bf16_padded_floats(int64_t n, int64_t h, int64_t w, int64_t c, int pad) {
  return AlignedBuffer::round_up((n * (h + 2 * pad) * (w + 2 * pad) * c + 2) / 2);  // + its zero
}

int bf16_images_per_chunk(int n, int64_t h, int64_t w, int64_t c, int pad) {
  const size_t per_image = bf16_padded_floats(1, h, w, c, pad);
  return static_cast<int>(std::clamp<int64_t>(kPaddedChunkFloats / per_image, 1, n));
}

int bf16_input_chunk(const Conv2dShape& s) {
  return bf16_images_per_chunk(s.n, s.h, s.w, s.c_in, s.pad_h);
}

int bf16_dy_chunk(const Conv2dShape& s) {
  return bf16_images_per_chunk(s.n, s.out_h(), s.out_w(), s.c_out, dy_padding(s));
}

size_t bf16_forward_workspace_floats(const Conv2dShape& s) {
  return paired_kernel_floats(s.kh, s.kw, s.group_in(), s.c_out) +
         bf16_padded_floats(bf16_input_chunk(s), s.h, s.w, s.c_in, s.pad_h);
}

// The phase kernels in pairs (the phases' taps together are the kernel's: one paired kernel over
// group_out channels into c_in), then the padded dy.
size_t bf16_backward_data_workspace_floats(const Conv2dShape& s) {
  return paired_kernel_floats(s.kh, s.kw, s.group_out(), s.c_in) +
         bf16_padded_floats(bf16_dy_chunk(s), s.out_h(), s.out_w(), s.c_out, dy_padding(s));
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

// dy [rows, out_w, c_out] in pairs of neighbouring pixels: out[row][q][co] pairs dy[row][2q][co]
// and dy[row][2q + 1][co] (0 past an odd out_w).
template <typename D>
void pair_dy(const D* dy, int64_t rows, int out_w, int64_t c_out, uint32_t* out, const Exec& ex) {
  const int64_t pairs = (out_w + 1) / 2;
  parallel_for(
      ex, rows,
      [&](int64_t r0, int64_t r1) {
        for (int64_t row = r0; row < r1; ++row) {
          for (int64_t q = 0; q < pairs; ++q) {
            const D* lo = dy + (row * out_w + 2 * q) * c_out;
            interleave_pair(lo, 2 * q + 1 < out_w ? lo + c_out : nullptr, c_out,
                            out + (row * pairs + q) * c_out);
          }
        }
      },
      4);
}

void pair_dy(ConstElements dy, int64_t rows, int out_w, int64_t c_out, uint32_t* out,
             const Exec& ex) {
  if (dy.type == ElementType::kBFloat16) return pair_dy(dy.bf16(), rows, out_w, c_out, out, ex);
  pair_dy(dy.f32(), rows, out_w, c_out, out, ex);
}

// The bfloat16 backward-weight pass sums over pairs of neighbouring output pixels (vdpbf16ps), in
// one of two tile orientations.
// - Channels in the vector lanes, taps in the rows, as the float32 pass: each row broadcasts a
//   tap's pair of pixels from a copy of the padded input paired pixel by pixel (pair_pixels: twice
//   the input's size, written and read again) and multiplies it into c_out / 16 vectors of dy
//   pairs (pair_dy).
// - Taps in the lanes, output channels in the rows (tap tiles): a vector of 16 taps' pairs is two
//   loads of x as it is (the taps of pixel p and of p + 1) interleaved in a register, and each row
//   broadcasts its channel's dy pair (tap_tiles_pair_dy) into 3 such vectors. Nothing is padded:
//   a window's taps outside the image are masked off at the row's ends, and padding rows are
//   skipped (their products are zeros). The sums are kept transposed, [ky][run][c_out][the run's
//   taps in whole vectors], between dweight's transposes in and out.
// The paired copy costs in proportion to c_in, the products to c_in x c_out: with few output
// channels the copy dominates and the tap tiles win; with many, channel tiles broadcast each pair
// into more vectors than tap tiles do, and need no transposes (bench_conv --bf16, Zen 5, 3x3:
// ResNet-20's b128 28x28 16 -> 16 2.1-2.3 -> 0.9-1.1 ms, 14x14 32 -> 32 1.4-1.6 -> 0.8-1.2 ms,
// the stride-2 28x28 16 -> 32 1.6 -> 1.0 ms; 7x7 64 -> 64 ties; ResNet-50's b32 56x56 64 -> 64
// loses 10%; measured while tap tiles still read padded, paired copies).
bool taps_in_lanes(const Conv2dShape& s) { return s.c_out <= 2 * kLanes; }

constexpr int kTapVectors = 3;       // vectors of taps per tile
constexpr int kTapTileChannels = 8;  // output channels per tile: 24 accumulators, 3 pairs, 1 dy

// A tap tile's view of x. The tile's taps of the window whose first input pixel is iw0 (negative,
// or past the row's end, in the padding) are the elements [iw0 * pixel_step + lane_offset, ...
// + taps) of an input row, at x + iw0 * pixel_step: those outside [0, w * pixel_step) read zeros.
// The shape's sizes and steps are copied in as the loops use them: a tile holding the Conv2dShape
// and deriving them took 2-7% longer over the pass.
struct TapTile {
  const uint16_t* x;    // x at image 0, row 0, pixel 0, plus lane_offset
  int64_t lane_offset;  // the tile's first tap in a window: elements past the window's first
  int64_t image_step;   // elements between images of x
  int64_t row_step;     // ... between rows
  int64_t pixel_step;   // ... between pixels
  int h, w, stride, pad_h, pad_w, ky, out_h, out_w;
  // Whether the tile asks for the rows of x and dy ahead (prefetch.h): the first tile of a thread
  // over a chunk of rows, which reads them from memory for the tiles after it. Without, the tiles
  // of ResNet-20 at 28x28 wait on dy and x, and take as long as the padded copies they replace.
  bool prefetch;
  __mmask16 last_lanes;  // the taps of the tile's last vector
  // Pixel pairs [first_inside, end_inside) of a row have both windows inside the image.
  int64_t first_inside, end_inside;
  // dy at the tile's first output channel: in pixel pairs (pair_dy), or as it is (null dy_pairs),
  // which the tile pairs a row at a time.
  const uint32_t* dy_pairs;
  const uint16_t* dy;
  int64_t c_out;
  float* sums;       // the transposed sums at the tile's first channel and tap
  int64_t sums_row;  // floats between the sums of neighbouring output channels
};

// The lanes of vector j of a tile's taps that lie inside the image for the window at iw0.
template <int NT>
__mmask16 window_lanes(const TapTile& t, int64_t iw0, int j) {
  const int64_t first = iw0 * t.pixel_step + t.lane_offset + j * kLanes;  // in the input row
  const __mmask16 lanes =
      first_lanes(t.w * t.pixel_step - first) & static_cast<__mmask16>(~first_lanes(-first));
  return j == NT - 1 ? lanes & t.last_lanes : lanes;
}

// Pairs 16 taps of pixel p (lo) with the same taps of pixel p + 1 (hi), lo's in the low halves
// (the index reads only the low halves of its operands, so the casts leave the rest undefined).
inline __m512bh pair_taps(__m256i lo, __m256i hi, __m512i interleave) {
  return (__m512bh)_mm512_permutex2var_epi16(_mm512_castsi256_si512(lo), interleave,
                                             _mm512_castsi256_si512(hi));
}

inline __m256i load_taps(const uint16_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// acc += the products of output pixels p and p + 1 of one row (in: x at the row's pixel 0, plus
// the tile's lane_offset), whose dy pairs are `pairs`. Inside: both windows lie inside the image,
// and only the last vector needs its lanes masked.
template <int NT, bool Inside>
inline void add_pixel_pair(const TapTile& t, Vec (&acc)[kTapTileChannels][NT], const uint16_t* in,
                           const uint32_t* pairs, int64_t p, __m512i interleave) {
  const bool has_hi = p + 1 < t.out_w;
  const int64_t iw0 = p * t.stride - t.pad_w;
  const uint16_t* lo = in + iw0 * t.pixel_step;
  const uint16_t* hi = lo + t.stride * t.pixel_step;
  __m512bh x[NT];
#pragma GCC unroll 4
  for (int j = 0; j < NT; ++j) {
    if (Inside && j < NT - 1) {
      x[j] = pair_taps(load_taps(lo + j * kLanes), load_taps(hi + j * kLanes), interleave);
    } else {
      const __mmask16 lo_lanes = Inside ? t.last_lanes : window_lanes<NT>(t, iw0, j);
      const __mmask16 hi_lanes =
          Inside ? t.last_lanes : (has_hi ? window_lanes<NT>(t, iw0 + t.stride, j) : 0);
      x[j] = pair_taps(_mm256_maskz_loadu_epi16(lo_lanes, lo + j * kLanes),
                       _mm256_maskz_loadu_epi16(hi_lanes, hi + j * kLanes), interleave);
    }
  }
  rank2_update<all_rows(kTapTileChannels)>(
      acc, [&](int r) { return pairs[r]; }, x);
}

// Pixel pairs whose dy pairs a tap tile makes at a time, in L1.
constexpr int64_t kTapTilePairs = 64;

// pairs[q - first][r] = the dy pair of output pixels 2q and 2q + 1 (0 past the row's end) in
// channel r of the tile, for pixel pairs q in [first, end) of a row (dy: its pixel 0). Two 128-bit
// unpacks, not interleave_pair's masked 512-bit permute: that one took 2-7% longer over the pass
// (bench harness, ResNet-20's 16- and 32-channel layers).
inline void pair_tile_channels(const TapTile& t, const uint16_t* dy, int64_t first, int64_t end,
                               uint32_t (*pairs)[kTapTileChannels]) {
  static_assert(kTapTileChannels == 8, "a tile's channels of one pixel are one 128-bit load");
  for (int64_t q = first; q < end; ++q) {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(dy + 2 * q * t.c_out));
    const __m128i hi =
        2 * q + 1 < t.out_w
            ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(dy + (2 * q + 1) * t.c_out))
            : _mm_setzero_si128();
    uint32_t* out = pairs[q - first];
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_unpacklo_epi16(lo, hi));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 4), _mm_unpackhi_epi16(lo, hi));
  }
}

// sums += the tile's products over output pixel rows [row0, row1), pair by pair in order.
template <int NT>
void tap_tile(const TapTile& t, int64_t row0, int64_t row1) {
  const __m512i interleave = interleave_operands();
  const int64_t pixel_pairs = (t.out_w + 1) / 2;
  uint32_t pairs[kTapTilePairs][kTapTileChannels];
  Vec acc[kTapTileChannels][NT];
  load_tile(acc, t.sums, t.sums_row);
  for (int64_t row = row0; row < row1; ++row) {
    const int64_t ih = row % t.out_h * t.stride + t.ky - t.pad_h;
    if (ih < 0 || ih >= t.h) continue;  // a padding row: all its products are zeros
    const uint16_t* in = t.x + row / t.out_h * t.image_step + ih * t.row_step;
    if (t.prefetch) {
      prefetch_rows_ahead(in - t.lane_offset, t.row_step, t.stride, t.row_step);
      if (t.dy_pairs != nullptr) {
        prefetch_rows_ahead(t.dy_pairs + row * pixel_pairs * t.c_out, pixel_pairs * t.c_out, 1,
                            pixel_pairs * t.c_out);
      } else {
        prefetch_rows_ahead(t.dy + row * t.out_w * t.c_out, t.out_w * t.c_out, 1,
                            t.out_w * t.c_out);
      }
    }
    for (int64_t first = 0; first < pixel_pairs; first += kTapTilePairs) {
      const int64_t end = std::min(pixel_pairs, first + kTapTilePairs);
      // Pixel pair q's dy pairs are at dy_pairs + (q - first) * step.
      const uint32_t* dy_pairs = &pairs[0][0];
      int64_t step = kTapTileChannels;
      if (t.dy_pairs != nullptr) {
        dy_pairs = t.dy_pairs + (row * pixel_pairs + first) * t.c_out;
        step = t.c_out;
      } else {
        pair_tile_channels(t, t.dy + row * t.out_w * t.c_out, first, end, pairs);
      }
      // The pairs before the windows inside the image, those inside, those after: each loop
      // with its own code, the middle one without masks to compute.
      const int64_t inside = std::clamp(t.first_inside, first, end);
      const int64_t after = std::clamp(t.end_inside, inside, end);
      for (int64_t q = first; q < inside; ++q)
        add_pixel_pair<NT, false>(t, acc, in, dy_pairs + (q - first) * step, 2 * q, interleave);
      for (int64_t q = inside; q < after; ++q)
        add_pixel_pair<NT, true>(t, acc, in, dy_pairs + (q - first) * step, 2 * q, interleave);
      for (int64_t q = after; q < end; ++q)
        add_pixel_pair<NT, false>(t, acc, in, dy_pairs + (q - first) * step, 2 * q, interleave);
    }
  }
  store_tile(acc, t.sums, t.sums_row);
}

// The shape of the transposed sums: per kernel row, `taps.runs` runs of `vectors` whole vectors
// of taps per output channel.
struct TapSums {
  TapRuns taps;
  int64_t vectors;  // per run
  int64_t blocks;   // tiles along a run
  int64_t row() const { return vectors * kLanes; }
  int64_t floats(const Conv2dShape& s) const { return s.kh * taps.runs * s.c_out * row(); }
};

TapSums tap_sums(const Conv2dShape& s) {
  const TapRuns taps = tap_runs(s.kw, s.c_in, s.groups);
  const int64_t vectors = (taps.run + kLanes - 1) / kLanes;
  return {taps, vectors, (vectors + kTapVectors - 1) / kTapVectors};
}

// The backward-weight pass's scratch. Tap tiles: their transposed sums, then per chunk of images
// x rounded to bfloat16 where it is float32, and dy's pixel pairs or dy rounded to bfloat16 (where
// the tiles pair it, and it is float32). Channel tiles: per chunk of images x padded and rounded
// to bfloat16 (half a float32 copy, and rounded once instead of converted twice), its pixel
// pairs, dy's pixel pairs.
struct WeightPassScratch {
  size_t sums, x, x_pairs, dy;
  size_t total() const { return sums + x + x_pairs + dy; }
};

WeightPassScratch bf16_weight_scratch(const Conv2dShape& s, int images) {
  if (taps_in_lanes(s)) {
    const int64_t x_image = int64_t{s.h} * s.w * s.c_in;
    return {AlignedBuffer::round_up(tap_sums(s).floats(s)),
            AlignedBuffer::round_up((images * x_image + 1) / 2), 0,
            AlignedBuffer::round_up(int64_t{images} * s.out_h() * ((s.out_w() + 1) / 2) * s.c_out)};
  }
  const int64_t hp = s.h + 2 * s.pad_h, wp = s.w + 2 * s.pad_w;
  return {0, bf16_padded_floats(images, s.h, s.w, s.c_in, s.pad_h),
          AlignedBuffer::round_up(images * hp * wp * s.c_in),
          AlignedBuffer::round_up(int64_t{images} * s.out_h() * ((s.out_w() + 1) / 2) * s.c_out)};
}

int bf16_weight_chunk(const Conv2dShape& s) {
  const WeightPassScratch one = bf16_weight_scratch(s, 1);
  const size_t per_image = one.total() - one.sums;
  return static_cast<int>(std::clamp<int64_t>(2 * kPaddedChunkFloats / per_image, 1, s.n));
}

// n elements of v as bfloat16: v's own when it stores them so, else rounded into `copy`.
const uint16_t* bf16_elements(ConstElements v, int64_t n, uint16_t* copy, const Exec& ex) {
  if (v.type == ElementType::kBFloat16) return reinterpret_cast<const uint16_t*>(v.bf16());
  parallel_for(
      ex, n, [&](int64_t i0, int64_t i1) { convert_to_bf16(v.f32() + i0, i1 - i0, copy + i0); },
      1 << 14);
  return copy;
}

// The pixel pairs [first, end) of an output row whose two windows' taps [lane_offset, lane_offset
// + taps) lie inside the input row.
std::pair<int64_t, int64_t> pairs_inside(const Conv2dShape& s, int64_t lane_offset, int64_t taps) {
  // A window's first pixel iw0 = p * stride - pad must be in [lowest, highest].
  const int64_t lowest = -(lane_offset / s.c_in);
  const int64_t highest = s.w - (lane_offset + taps + s.c_in - 1) / s.c_in;
  const int64_t first_pixel = std::max<int64_t>(0, (lowest + s.pad_w + s.stride - 1) / s.stride);
  const int64_t last_pixel =
      highest + s.pad_w < 0 ? -1 : std::min<int64_t>(s.out_w() - 1, (highest + s.pad_w) / s.stride);
  return {(first_pixel + 1) / 2, std::max<int64_t>(0, (last_pixel + 1) / 2)};
}

// sums += the tap tiles' pass over a chunk of s.n images of x and dy, both bfloat16. Threads own
// whole tiles, so every sum is taken by one thread in pixel order whatever the thread count.
void tap_pass(const Conv2dShape& s, const TapSums& g, const uint16_t* x, const uint32_t* dy_pairs,
              const uint16_t* dy, float* sums, const Exec& ex) {
  static constexpr std::array<void (*)(const TapTile&, int64_t, int64_t), kTapVectors> kTiles{
      &tap_tile<1>, &tap_tile<2>, &tap_tile<3>};
  const int64_t channel_blocks = s.c_out / kTapTileChannels;
  const int64_t out_rows = int64_t{s.n} * s.out_h();
  const int64_t row_bytes =
      sizeof(uint16_t) * (int64_t{s.out_w()} * s.c_out + int64_t{s.stride} * s.kh * s.w * s.c_in);
  const int64_t chunk_rows = weight_chunk_rows(row_bytes);
  const int64_t tiles = s.kh * g.taps.runs * g.blocks * channel_blocks;
  parallel_for(ex, tiles, [&](int64_t u0, int64_t u1) {
    for (int64_t row0 = 0; row0 < out_rows; row0 += chunk_rows) {
      const int64_t row1 = std::min(out_rows, row0 + chunk_rows);
      for (int64_t u = u0; u < u1; ++u) {
        const int64_t ky = u / (g.taps.runs * g.blocks * channel_blocks);
        const int64_t k = u / (g.blocks * channel_blocks) % g.taps.runs;
        const int64_t q0 = u / channel_blocks % g.blocks * kTapVectors * kLanes;
        const int64_t co = u % channel_blocks * kTapTileChannels;
        const int64_t group_first_in = co / s.group_out() * s.group_in();
        const int64_t taps = std::min<int64_t>(kTapVectors * kLanes, g.taps.run - q0);
        const int vectors = static_cast<int>((taps + kLanes - 1) / kLanes);
        const int64_t lane_offset = k * g.taps.run_step + group_first_in + q0;
        const auto [first_inside, end_inside] = pairs_inside(s, lane_offset, taps);
        const TapTile t{x + lane_offset,
                        lane_offset,
                        int64_t{s.h} * s.w * s.c_in,
                        int64_t{s.w} * s.c_in,
                        s.c_in,
                        s.h,
                        s.w,
                        s.stride,
                        s.pad_h,
                        s.pad_w,
                        static_cast<int>(ky),
                        s.out_h(),
                        s.out_w(),
                        u == u0,
                        first_lanes(taps - (vectors - 1) * kLanes),
                        first_inside,
                        end_inside,
                        dy_pairs != nullptr ? dy_pairs + co : nullptr,
                        dy != nullptr ? dy + co : nullptr,
                        s.c_out,
                        sums + ((ky * g.taps.runs + k) * s.c_out + co) * g.row() + q0,
                        g.row()};
        kTiles[vectors - 1](t, row0, row1);
      }
    }
  });
}

// Calls fn(sum, weight) for each element of dweight [kh, runs x run, c_out] and its place in the
// transposed sums.
template <typename Fn>
void for_each_tap_sum(const Conv2dShape& s, const TapSums& g, float* dweight, float* sums,
                      Fn&& fn) {
  for (int64_t r = 0; r < s.kh * g.taps.runs; ++r) {
    for (int64_t q = 0; q < g.taps.run; ++q) {
      float* weights = dweight + (r * g.taps.run + q) * s.c_out;
      for (int64_t co = 0; co < s.c_out; ++co)
        fn(sums[(r * s.c_out + co) * g.row() + q], weights[co]);
    }
  }
}

// Whether the tap tiles pair dy themselves, a row at a time, instead of reading the pairs of a
// pass before (pair_dy): while a channel's dy feeds few tiles per kernel row, pairing it in each
// costs less than writing and reading the pairs. In training (--profile, Zen 5, backward ms,
// pairs in the tiles vs pair_dy): ResNet-20's b128 14x14 32 -> 32 (2 tiles per kernel row)
// 1.53 vs 1.72; DenseNet-121's b16 128 -> 32 (8 tiles) 4% slower over its 3x3 layers.
bool tap_tiles_pair_dy(const TapSums& g) { return g.taps.runs * g.blocks <= 2; }

// dweight += the tap tiles' pass (taps_in_lanes), through its transposed sums.
void tap_tiles_backward_weight(const Conv2dShape& s, ConstElements x, ConstElements dy,
                               float* dweight, float* workspace, const Exec& ex) {
  const TapSums g = tap_sums(s);
  const bool tiles_pair_dy = tap_tiles_pair_dy(g);
  // What is read as it is, bfloat16, is read in place; the rest is rounded (x, dy) or paired (dy)
  // a chunk of images at a time, and with nothing to copy the batch is one chunk.
  const bool nothing_copied =
      x.type == ElementType::kBFloat16 && dy.type == ElementType::kBFloat16 && tiles_pair_dy;
  const int copied = bf16_weight_chunk(s);
  const WeightPassScratch scratch = bf16_weight_scratch(s, copied);
  float* sums = workspace;
  uint16_t* x_copy = reinterpret_cast<uint16_t*>(workspace + scratch.sums);
  float* dy_scratch = workspace + scratch.sums + scratch.x;  // a bfloat16 copy, or the pairs
  std::fill(sums, sums + scratch.sums, 0.0f);                // the lanes past a run's taps stay 0
  for_each_tap_sum(s, g, dweight, sums, [](float& sum, float w) { sum = w; });
  const int64_t x_image = int64_t{s.h} * s.w * s.c_in;
  const int64_t dy_image = int64_t{s.out_h()} * s.out_w() * s.c_out;
  for_each_chunk(s.n, nothing_copied ? s.n : copied, [&](int n0, int images) {
    Conv2dShape part = s;
    part.n = images;
    const uint16_t* x_bf16 = bf16_elements(x.at(n0 * x_image), images * x_image, x_copy, ex);
    if (tiles_pair_dy) {
      const uint16_t* dy_bf16 = bf16_elements(dy.at(n0 * dy_image), images * dy_image,
                                              reinterpret_cast<uint16_t*>(dy_scratch), ex);
      return tap_pass(part, g, x_bf16, nullptr, dy_bf16, sums, ex);
    }
    uint32_t* dy_pairs = reinterpret_cast<uint32_t*>(dy_scratch);
    pair_dy(dy.at(n0 * dy_image), int64_t{images} * s.out_h(), s.out_w(), s.c_out, dy_pairs, ex);
    tap_pass(part, g, x_bf16, dy_pairs, nullptr, sums, ex);
  });
  for_each_tap_sum(s, g, dweight, sums, [](float sum, float& w) { w = sum; });
}

void backward_weight_bf16(const Conv2dShape& s, ConstElements x, ConstElements dy, float* dweight,
                          float* workspace, const Exec& ex) {
  if (taps_in_lanes(s)) return tap_tiles_backward_weight(s, x, dy, dweight, workspace, ex);
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
    if (vectors_per_tile(s.group_out()) == 2) {
      backward_weight_pass<BFloat16Math, 2>(part, pairs, dy_pairs, dweight, ex);
    } else {
      backward_weight_pass<BFloat16Math, 1>(part, pairs, dy_pairs, dweight, ex);
    }
  });
}

template <typename Out>
void forward_bf16(const Conv2dShape& s, ConstElements x, const float* weight, const float* bias,
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
    run_sweep(sweep_over<BFloat16Math, Out>(in, 0, 0, s.stride, s.out_h(), s.out_w(),
                                            y + n0 * y_image, s.out_h(), s.out_w(), 1, s.c_out,
                                            s.kh, s.kw, s.groups, kernel, bias, images),
              ex);
  });
}

// Out: float, or bfloat16 bits for a bfloat16 dx. Every element of dx is one phase's sum over its
// taps, so rounding the register tiles as they are stored rounds each sum once.
template <typename Out>
void backward_data_bf16(const Conv2dShape& s, ConstElements dy, const float* weight, Out* dx,
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
#endif

// Whether the bfloat16 kernels take s: ungrouped (an odd run's last pair gets a zero weight) or
// with an even number of input channels per group (each group's taps pair up within it), on a
// CPU with AVX512_BF16 (elsewhere bfloat16 convolutions take the GEMM paths, which emulate the
// instruction).
bool bf16_direct(const Conv2dShape& s) {
#if defined(__AVX512BF16__)
  return s.groups == 1 || s.group_in() % 2 == 0;
#else
  return false;
#endif
}

// Input channels per group up to which the forward and backward-data kernels take a layer. In
// bfloat16 they beat the GEMM on 3x3 layers over 512 channels too, whose padding taps they skip
// and whose patches they need not copy (issue 15's Zen 4, b32, best of 8, ms forward /
// backward-data, GEMM -> direct: 7x7 24.4 / 25.2 -> 15.9 / 19.3, 14x14 95.6 / 97.9 -> 65.8 /
// 70.7, stride 2 from 14x14 25.5 / 24.7 -> 17.3 / 20.1; b16 28x28 196 / 225 -> 138 / 144). In
// float32 they gain less or lose (stride 2 from 14x14 forward 38 -> 48), and with AVX2's 6-pixel
// tiles they take 1.6-2.1x the GEMM's time.
int max_direct_in_channels(Precision precision) {
  return precision == Precision::kBFloat16 ? 2 * kMaxDirectInChannels : kMaxDirectInChannels;
}

// Whether s's output rows are narrower than a forward tile (14 pixels with AVX-512) over a patch
// deep enough for the GEMM to run near its peak. Then the im2col GEMM wins the backward-weight
// pass, whose tiles sum over a row's pixels, or ties (Zen 5, b32,
// bench_conv, ms: ResNet-18's 3x3 256 -> 512 stride 2 at 14x14 float32 13 direct, 12 GEMM;
// bfloat16 9 direct, 7 GEMM; 3x3 512 -> 512 at 7x7 bfloat16 17 direct, 12-13 GEMM, float32
// even). Narrow channels stay direct: ResNet-20's 64 channels at 7x7 run twice as fast there.
bool narrow_map_over_deep_patch(const Conv2dShape& s) {
  return s.out_w() < forward_tile_pixels(2) && s.group_in() >= kMaxDirectInChannels;
}

// The same for the forward and backward-data passes, whose tiles take two output rows where a
// map is at most half a tile wide (a 7x7 map: 14 pixels of 14): maps that fill neither one row
// nor two (8 to 13 pixels wide with AVX-512). Two rows of 7 turned ResNet-18's 3x3 256 -> 512
// stride 2 from 14x14 from a GEMM's 10.9 / 10.8 ms forward / backward-data in bfloat16, 21.9 /
// 20.4 in float32, into the direct kernels' 8.2 / 9.8 and 16.4 / 18.2 (Zen 4, b32).
bool half_empty_tiles_over_deep_patch(const Conv2dShape& s) {
  return narrow_map_over_deep_patch(s) && 2 * s.out_w() > forward_tile_pixels(2);
}

}  // namespace

bool conv2d_direct_suits(const Conv2dShape& s, Precision precision) {
  if (precision == Precision::kBFloat16 && !bf16_direct(s)) return false;
  return s.pad_h == s.pad_w && s.group_out() % kLanes == 0 && narrow_groups(s) &&
         s.group_in() <= max_direct_in_channels(precision) && !s.is_pointwise() &&
         !half_empty_tiles_over_deep_patch(s);
}

bool conv2d_direct_backward_weight_suits(const Conv2dShape& s, Precision precision) {
#if !defined(__AVX512BF16__)
  if (precision == Precision::kBFloat16) return false;
#endif
  if (s.pad_h != s.pad_w || s.group_out() % kLanes != 0 || !narrow_groups(s) ||
      narrow_map_over_deep_patch(s)) {
    return false;
  }
  // A 1x1 kernel: the GEMM reads x^T in place (an im2col subsampling where strided) and wins,
  // widening or narrowing; in bfloat16 the direct pass would first pair the pixels of x and dy
  // (b32, bench_conv, ms: float32 256 -> 64 at 56x56 12.4-12.6 direct, 11.0-11.3 GEMM; 256 -> 128
  // 22.1, 20.4-20.6; ResNet-18's 64 -> 128 stride 2 2.5-3.1, 2.2; bfloat16 256 -> 64 33-39, 17-21
  // when bench_conv still made every GEMM call allocate its blocks).
  if (s.kh * s.kw == 1) return false;
  // A stride-1 kernel past 1x1 in float32, whatever the channels: im2col + GEMM reads and writes
  // all of dweight again for every im2col tile (3x3 512 -> 512 at 28x28, b8: 96 ms direct, 104-109
  // GEMM). In bfloat16 the GEMM's deep products win past kMaxDirectInChannels (the same layer
  // 60-62 direct, 51-52 GEMM; at 14x14, b32, 62-65 and 53-54).
  if (s.stride == 1 && precision == Precision::kFloat32) return true;
  return s.group_in() <= kMaxDirectInChannels;
}

bool conv2d_direct_backward_data_suits(const Conv2dShape& s, Precision precision) {
  return conv2d_direct_suits(s, precision) && s.group_in() % kLanes == 0;
}

size_t conv2d_direct_workspace_floats(const Conv2dShape& s) {
  size_t floats = 0;
  if (conv2d_direct_suits(s, Precision::kFloat32) ||
      conv2d_direct_backward_weight_suits(s, Precision::kFloat32)) {
    floats = forward_workspace_floats(s);  // the padded input, as the backward-weight pads it too
  }
  if (conv2d_direct_backward_data_suits(s, Precision::kFloat32)) {
    floats = std::max(floats, backward_data_workspace_floats(s));
  }
#if defined(__AVX512BF16__)
  if (conv2d_direct_suits(s, Precision::kBFloat16)) {
    floats = std::max(floats, bf16_forward_workspace_floats(s));
  }
  if (conv2d_direct_backward_data_suits(s, Precision::kBFloat16)) {
    floats = std::max(floats, bf16_backward_data_workspace_floats(s));
  }
  if (conv2d_direct_backward_weight_suits(s, Precision::kBFloat16)) {
    floats = std::max(floats, bf16_weight_scratch(s, bf16_weight_chunk(s)).total());
  }
#endif
  return floats;
}

void conv2d_direct_forward(const Conv2dShape& s, ConstElements x, const float* weight,
                           const float* bias, Elements y, float* workspace, const Exec& ex,
                           Precision precision) {
#if defined(__AVX512BF16__)
  if (precision == Precision::kBFloat16) {
    if (y.type == ElementType::kBFloat16) {
      return forward_bf16(s, x, weight, bias, reinterpret_cast<uint16_t*>(y.bf16()), workspace, ex);
    }
    return forward_bf16(s, x, weight, bias, y.f32(), workspace, ex);
  }
#endif
  const int64_t x_image = int64_t{s.h} * s.w * s.c_in;
  const int64_t y_image = int64_t{s.out_h()} * s.out_w() * s.c_out;
  for_each_chunk(s.n, input_chunk(s), [&](int n0, int images) {
    const PaddedInput<float> in =
        pad_input(x.at(n0 * x_image), images, s.h, s.w, s.c_in, s.pad_h, workspace, ex);
    run_sweep(sweep_over<Float32Math, float>(in, 0, 0, s.stride, s.out_h(), s.out_w(),
                                             y.f32() + n0 * y_image, s.out_h(), s.out_w(), 1,
                                             s.c_out, s.kh, s.kw, s.groups, weight, bias, images),
              ex);
  });
}

void conv2d_direct_backward_data(const Conv2dShape& s, ConstElements dy, const float* weight,
                                 Elements dx_elements, float* workspace, const Exec& ex,
                                 Precision precision) {
#if defined(__AVX512BF16__)
  if (precision == Precision::kBFloat16) {
    if (dx_elements.type == ElementType::kBFloat16) {
      return backward_data_bf16(s, dy, weight, reinterpret_cast<uint16_t*>(dx_elements.bf16()),
                                workspace, ex);
    }
    return backward_data_bf16(s, dy, weight, dx_elements.f32(), workspace, ex);
  }
#endif
  XTRAIN_CHECK(dx_elements.type == ElementType::kFloat32,
               "a float32 backward-data pass needs a float32 dx");
  float* dx = dx_elements.f32();
  const int pad = dy_padding(s);
  zero_untouched_phases(s, dx, ex);
  // Each phase's kernel, one after the other at the workspace's start; then every chunk of
  // images sweeps each phase.
  phase_kernels<Float32Math>(s, weight, workspace, ex);
  float* padded = workspace + phase_kernels_floats(s);
  const int64_t dy_image = int64_t{s.out_h()} * s.out_w() * s.c_out;
  const int64_t dx_image = int64_t{s.h} * s.w * s.c_in;
  for_each_chunk(s.n, dy_chunk(s), [&](int n0, int images) {
    const PaddedInput<float> in =
        pad_input(dy.at(n0 * dy_image), images, s.out_h(), s.out_w(), s.c_out, pad, padded, ex);
    sweep_phases<Float32Math>(s, in, pad, workspace, s.group_out() * s.c_in, dx + n0 * dx_image,
                              images, ex);
  });
}

void conv2d_direct_backward_weight(const Conv2dShape& s, ConstElements x, ConstElements dy,
                                   float* dweight, float* workspace, const Exec& ex,
                                   Precision precision) {
#if defined(__AVX512BF16__)
  if (precision == Precision::kBFloat16) {
    return backward_weight_bf16(s, x, dy, dweight, workspace, ex);
  }
#endif
  XTRAIN_CHECK(dy.type == ElementType::kFloat32,
               "a float32 backward-weight pass needs a float32 dy");
  const int64_t x_image = int64_t{s.h} * s.w * s.c_in;
  const int64_t dy_image = int64_t{s.out_h()} * s.out_w() * s.c_out;
  for_each_chunk(s.n, input_chunk(s), [&](int n0, int images) {
    Conv2dShape chunk = s;
    chunk.n = images;
    const PaddedInput<float> padded =
        pad_input(x.at(n0 * x_image), images, s.h, s.w, s.c_in, s.pad_h, workspace, ex);
    if (vectors_per_tile(s.group_out()) == 2) {
      backward_weight_pass<Float32Math, 2>(chunk, padded, dy.f32() + n0 * dy_image, dweight, ex);
    } else {
      backward_weight_pass<Float32Math, 1>(chunk, padded, dy.f32() + n0 * dy_image, dweight, ex);
    }
  });
}

}  // namespace xtrain::kernels
