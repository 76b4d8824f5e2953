// The per-thread half of gemm(): the cache blocking, packing and register tiles behind it, one
// set per Precision (gemm.cpp: float32, gemm_bf16.cpp: bfloat16). gemm() splits C over the
// threads and hands each its rectangle. Internal to lib/kernels.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "lib/kernels/bf16_pairs.h"
#include "lib/kernels/simd.h"
#include "lib/tensor/elements.h"
#include "lib/tensor/precision.h"

namespace xtrain::kernels::gemm_tile {

using simd::Vec;

// Micro-tile of C held in registers: kMR rows by two vectors (12 of AVX2's 16 registers).
constexpr int kMR = 6;
constexpr int kNR = 2 * simd::kLanes;
// Cache blocks: a kMC x kKC block of A stays in L2, a kKC x kNR panel of B in L1; the kKC x kNC
// block of B streams from L3. kKC is even, so bfloat16 pairs never straddle two blocks.
constexpr int64_t kKC = 256;
constexpr int64_t kMC = 24 * kMR;
constexpr int64_t kNC = 64 * kNR;
// A product at most this deep is summed in one block of k, where its A is packed compactly: in
// bfloat16 (a pair takes one float's slot, so 512 deep is the float32 block) or row-major (the
// float32 tiles read its rows in place). Each register tile then holds its finished sums when it
// is stored (rounded straight into a bfloat16 C), and C is written once instead of read back
// after every block. The deeper block packs fewer columns of B into the same scratch, and B's
// panels leave L1 for L2, which the tile's two B vectors per twelve products bear. A float32
// transposed A (backward-weight passes) keeps kKC's blocks: read in place or packed, a block of
// all of k spills L2 and runs slower than summing several blocks (ResNet-50's 2048 -> 512 at 7x7),
// as do products deeper than this (in bfloat16, too: their C is float32 and their blocks of B would
// hold a few columns).
constexpr int64_t kWholeK = 2048;
// Every thread's packing blocks: A's, then B's: kKC deep, or kWholeK deep with at least four panels
// of B. kWholeK is the same in every build, since the blocks of k decide a bfloat16 product's
// bits; the narrower vectors' builds (AVX2, portable) take larger blocks for it.
constexpr int64_t kDeepestBlocksFloats = kWholeK * (kMC + 4 * kNR);
constexpr int64_t kBlockFloats = std::max(kMC * kKC + kKC * kNC, kDeepestBlocksFloats);

// The columns of B's block beside A's kMC rows in a thread's scratch, where a row of A's block and
// a column of B's take `slots` floats each (a block's depth in float32, its pairs' slots in
// bfloat16): kNC for kKC-deep blocks, fewer for deeper ones, at least four panels.
inline int64_t block_columns(int64_t slots) {
  return std::min(kNC, (kBlockFloats / slots - kMC) / kNR * kNR);
}
static_assert(kBlockFloats / kWholeK - kMC >= 4 * kNR, "a kWholeK-deep block holds four panels");

// op(A) or op(B) over its storage: float32, or bfloat16 (for bfloat16 products only).
struct Operand {
  ConstElements data;
  int64_t ld;
  bool transposed;  // stored as the transpose of the logical matrix

  const float* f32() const { return data.f32(); }
  const BFloat16* bf16() const { return data.bf16(); }
};

// A deep product (k at least twice C's larger side and two blocks: backward-weight GEMMs over a
// batch's pixels) is summed as two halves of k, the second added to the first at the end: each
// thread then streams whole rows of A's and B's storage of its own, where splitting C had every
// thread read all of B and a stretch of every row of A. The large maps of few channels
// (ResNet-50's 256 -> 64 at 56x56) gain most; the deeper layers neither gain nor lose. The halves
// depend on the shape only, so the bits stay independent of the thread count. The second half's
// sum lives at the end of the last thread's scratch slice, past the blocks that thread packs; a
// product whose C does not fit there keeps one pass. Returns where the second half starts, or 0
// for one pass; gemm() asks only for a product it sums in more than one block of k (block_depth).
int64_t second_half_start(int64_t m, int64_t n, int64_t k);

// The depth of the blocks of k that gemm() sums a product in: all of k, up to kWholeK deep, in
// bfloat16 or for a row-major A; otherwise kKC.
int64_t block_depth(int64_t k, bool trans_a, Precision precision);

// Storage rows of the operands that the next block will read, asked for into L2 a few cache lines
// per register tile while this block's tiles run (rows_ahead).
class RowsAhead {
 public:
  // Elements [col0, col0 + cols) of storage rows [row0, row0 + rows) of x.
  void add(const Operand& x, int64_t row0, int64_t rows, int64_t col0, int64_t cols) {
    if (rows <= 0 || cols <= 0) return;
    const int64_t bytes = x.data.type == ElementType::kBFloat16 ? 2 : 4;
    regions_[count_++] = {static_cast<const char*>(x.data.data) + (row0 * x.ld + col0) * bytes,
                          x.ld * bytes, rows, (cols * bytes + 63) / 64};
  }
  // Spreads the regions' lines over `calls` calls of ask_some().
  void spread_over(int64_t calls) {
    int64_t lines = 0;
    for (int i = 0; i < count_; ++i) lines += regions_[i].rows * regions_[i].lines;
    per_call_ = (lines + calls - 1) / calls;
  }
  void ask_some() {
    for (int64_t n = 0; n < per_call_ && region_ < count_; ++n) {
      const Region& r = regions_[region_];
      __builtin_prefetch(r.first + row_ * r.stride + line_ * 64, 0, 2);  // into L2
      if (++line_ < r.lines) continue;
      line_ = 0;
      if (++row_ < r.rows) continue;
      row_ = 0;
      ++region_;
    }
  }

 private:
  struct Region {
    const char* first;
    int64_t stride, rows, lines;  // bytes between rows, rows, cache lines per row
  };
  Region regions_[2];
  int count_ = 0, region_ = 0;
  int64_t per_call_ = 0, row_ = 0, line_ = 0;
};

// A backward-weight pass (a transposed A: x^T over a batch's pixels; B: dy) streams x and dy from
// memory once, and its packers (or float32 tiles reading A in place) waited on every row they read
// with the tiles idle (ResNet-50's 64 -> 256 at 56x56 in bfloat16: a quarter of the GEMM's time
// in the packers, their software prefetch a few rows ahead notwithstanding). Its next block's rows
// are asked for while the block at (ic, pc) is multiplied: A's next kMC rows of op(A), or after the
// last, the next block of k (B's block and A's first rows). Other products ask for nothing.
inline RowsAhead rows_ahead(const Operand& a, const Operand& b, int64_t i0, int64_t i1, int64_t ic,
                            int64_t mc, int64_t jc, int64_t nc, int64_t pc, int64_t depth,
                            int64_t k) {
  RowsAhead ahead;
  if (!a.transposed || b.transposed) return ahead;
  if (ic + kMC < i1) {
    ahead.add(a, pc, std::min(depth, k - pc), ic + kMC, std::min(kMC, i1 - ic - kMC));
  } else if (pc + depth < k) {
    const int64_t next_kc = std::min(depth, k - pc - depth);
    ahead.add(b, pc + depth, next_kc, jc, nc);
    ahead.add(a, pc + depth, next_kc, i0, std::min(kMC, i1 - i0));
  }
  ahead.spread_over((nc + kNR - 1) / kNR * ((mc + kMR - 1) / kMR));
  return ahead;
}

// C[i0 : i1, j0 : j1] = alpha * op(A) op(B) + beta * C on the calling thread, k in blocks `depth`
// deep (kKC or, for k up to kWholeK, all of k) in order; `blocks` holds kBlockFloats. With
// beta = 0, C is not read. C is float32, or bfloat16 for a product of one block of k, rounded as
// its tiles are stored.
template <typename Out>
void multiply_float32(const Operand& a, const Operand& b, int64_t i0, int64_t i1, int64_t j0,
                      int64_t j1, int64_t k, int64_t depth, float alpha, float beta, Out* c,
                      int64_t ldc, float* blocks);
template <typename Out>
void multiply_bf16(const Operand& a, const Operand& b, int64_t i0, int64_t i1, int64_t j0,
                   int64_t j1, int64_t k, int64_t depth, float alpha, float beta, Out* c,
                   int64_t ldc, float* blocks);

// Where tiles add C (c_scale != 0), asks for the lines of the tile after c_tile while this one
// multiplies: the next one down C's rows in the strip, or after the strip's last, next_strip (the
// next strip's first). The tiles walk C a strip of columns at a time, which no hardware
// prefetcher follows, and their loads of C would otherwise wait on memory as they are stored.
// Past C's end it asks for nothing harmful (a hint never faults).
template <typename Out>
inline void ask_for_next_c_tile(const Out* c_tile, int64_t ldc, bool last_in_strip,
                                const Out* next_strip) {
  const Out* next = last_in_strip ? next_strip : c_tile + kMR * ldc;
  constexpr int kBytes = kNR * static_cast<int>(sizeof(Out));
  for (int r = 0; r < kMR; ++r) {
    const char* row = reinterpret_cast<const char*>(next + r * ldc);
    for (int b = 0; b < kBytes; b += 64) __builtin_prefetch(row + b);
    __builtin_prefetch(row + kBytes - 1);
  }
}

// Walks the kMR x kNR register tiles of C's block [ic, ic + mc) x [jc, jc + nc) a strip of
// columns at a time, calling multiply(ir, jr, rows, cols, c_tile) for the tile at (ic + ir,
// jc + jr), its rows and columns inside the block, after asking for the next rows of A
// (`ahead`) and, where the tiles add C (`adds`), for the next tile's lines of C. Callers' lambdas
// capture by value: so the walk runs as fast as the loops written out, which it did not with
// captures by reference.
template <typename Out, typename Multiply>
inline void for_each_tile(Out* c, int64_t ldc, int64_t ic, int64_t mc, int64_t jc, int64_t nc,
                          bool adds, RowsAhead& ahead, Multiply&& multiply) {
  for (int64_t jr = 0; jr < nc; jr += kNR) {
    for (int64_t ir = 0; ir < mc; ir += kMR) {
      ahead.ask_some();
      Out* c_tile = c + (ic + ir) * ldc + jc + jr;
      if (adds) ask_for_next_c_tile(c_tile, ldc, ir + kMR >= mc, c + ic * ldc + jc + jr + kNR);
      multiply(ir, jr, static_cast<int>(std::min<int64_t>(kMR, mc - ir)),
               static_cast<int>(std::min<int64_t>(kNR, nc - jr)), c_tile);
    }
  }
}

// C tile [rows, cols] (at most kMR x kNR) = alpha * acc + c_scale * C; c_scale = 0: C is not
// read. An edge tile goes through a full-size buffer, so lanes outside C are never touched.
inline void store_tile(const Vec (&acc)[kMR][2], float alpha, float c_scale, float* c, int64_t ldc,
                       int rows, int cols) {
  const Vec alpha_v = simd::broadcast(&alpha), scale_v = simd::broadcast(&c_scale);
  const bool scaled = alpha != 1.0f;  // most callers' alpha is 1: no multiply (see below)
  float edge[kMR * kNR];
  const bool full = rows == kMR && cols == kNR;
  float* out = full ? c : edge;
  const int64_t ld = full ? ldc : kNR;
#pragma GCC unroll 6
  for (int r = 0; r < kMR; ++r) {
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      float* dst = out + r * ld + h * simd::kLanes;
      Vec v = scaled ? simd::mul(alpha_v, acc[r][h]) : acc[r][h];
      if (full && c_scale != 0.0f) v = simd::fma(scale_v, simd::load(dst), v);
      simd::store(dst, v);
    }
  }
  if (full) return;
  for (int r = 0; r < rows; ++r) {
    for (int j = 0; j < cols; ++j) {
      float& dst = c[r * ldc + j];
      dst = c_scale != 0.0f ? c_scale * dst + edge[r * kNR + j] : edge[r * kNR + j];
    }
  }
}

// The same tile rounded to bfloat16, as to_bfloat16 rounds (a bfloat16 C holds finished sums
// only: c_scale * C is added to the whole product, as a convolution adds its dx to another
// gradient): a full tile by the CPU's converts as it is stored where the build has AVX512_BF16,
// otherwise through a float32 tile. Its alpha is 1 (a convolution's output or dx), so the
// multiplies are skipped: 12 of a 32-deep tile's 400-odd vector operations, which shows in the
// shallow pointwise layers (64 input channels).
inline void store_tile(const Vec (&acc)[kMR][2], float alpha, float c_scale, BFloat16* c,
                       int64_t ldc, int rows, int cols) {
#if defined(__AVX512BF16__)
  if (rows == kMR && cols == kNR) {
    const Vec alpha_v = simd::broadcast(&alpha), scale_v = simd::broadcast(&c_scale);
    const bool scaled = alpha != 1.0f;
#pragma GCC unroll 6
    for (int r = 0; r < kMR; ++r) {
#pragma GCC unroll 2
      for (int h = 0; h < 2; ++h) {
        BFloat16* dst = c + r * ldc + h * simd::kLanes;
        Vec v = scaled ? simd::mul(alpha_v, acc[r][h]) : acc[r][h];
        if (c_scale != 0.0f) v = simd::fma(scale_v, load_widened(dst), v);
        store_rounded(dst, v);
      }
    }
    return;
  }
#endif
  float tile[kMR * kNR];
  store_tile(acc, alpha, 0.0f, tile, kNR, kMR, kNR);
  for (int r = 0; r < rows; ++r) {
    float* row = tile + r * kNR;
    if (c_scale != 0.0f) {
      for (int j = 0; j < cols; ++j) row[j] = std::fma(c_scale, to_float(c[r * ldc + j]), row[j]);
    }
    convert_to_bf16(row, cols, reinterpret_cast<uint16_t*>(c + r * ldc));
  }
}

// The packers of a transposed B (the weights of backward-data passes): whole kLanes x kLanes
// blocks of rows [0, rows) by columns [0, cols) (multiples of kLanes) stored transposed, column c
// of the rows at out + c * out_step, the rows side by side; load(r, c) gives row r's kLanes values
// from column c on. The blocks are transposed in registers, so every store fills a vector: a
// value at a time, each row sweeping all kc rows of a panel, missed L1 for most stores.
template <typename Load>
inline void transpose_blocks(int rows, int64_t cols, Load&& load, float* out, int64_t out_step) {
  for (int rb = 0; rb < rows; rb += simd::kLanes) {
    for (int64_t cb = 0; cb < cols; cb += simd::kLanes) {
      Vec block[simd::kLanes];
      for (int i = 0; i < simd::kLanes; ++i) block[i] = load(rb + i, cb);
      simd::transpose(block);
      for (int i = 0; i < simd::kLanes; ++i) simd::store(out + (cb + i) * out_step + rb, block[i]);
    }
  }
}

// How a register tile reads its kMR rows of A at p: packed (a[p * kMR + r]), rows in place
// (a[r * lda + p]: a row-major A, or rows copied so) or columns in place (a[p * lda + r]: a
// transposed A, whose kMR rows lie side by side at every p).
enum class APanel { kPacked, kRows, kColumns };

// The float32 register tile: C tile = alpha * a_panel * b_panel + c_scale * C, the product summed
// over p = 0..kc-1 in order. A is read as kA says; B is packed (b[p * kNR + c]).
template <APanel kA, typename Out>
void float32_tile(int64_t kc, const float* a, int64_t lda, const float* b, float alpha,
                  float c_scale, Out* c, int64_t ldc, int rows, int cols) {
  const int64_t row_step = kA == APanel::kRows ? lda : 1;
  const int64_t p_step = kA == APanel::kPacked ? kMR : kA == APanel::kRows ? 1 : lda;
  // Every loop over acc is unrolled, so it lives in registers instead of on the stack.
  Vec acc[kMR][2];
#pragma GCC unroll 6
  for (int r = 0; r < kMR; ++r) acc[r][0] = acc[r][1] = simd::zero();
  for (int64_t p = 0; p < kc; ++p) {
    const Vec b0 = simd::load(b), b1 = simd::load(b + simd::kLanes);
#pragma GCC unroll 6
    for (int r = 0; r < kMR; ++r) {
      const Vec ar = simd::broadcast(a + r * row_step);
      acc[r][0] = simd::fma(ar, b0, acc[r][0]);
      acc[r][1] = simd::fma(ar, b1, acc[r][1]);
    }
    a += p_step;
    b += kNR;
  }
  store_tile(acc, alpha, c_scale, c, ldc, rows, cols);
}

}  // namespace xtrain::kernels::gemm_tile
