#include "lib/kernels/gemm.h"

#include <algorithm>

#include "lib/base/check.h"
#include "lib/kernels/gemm_tile.h"
#include "lib/tensor/aligned_buffer.h"

namespace xtrain::kernels {
namespace gemm_tile {
namespace {

// out[p * width + r] = data[(r0 + r) * ld + p0 + p] for r in [r_begin, r_end), p in
// [p_begin, p_end): rows of storage into a k-major panel, one float at a time.
void copy_rows_into_panel(const float* data, int64_t ld, int64_t r0, int r_begin, int r_end,
                          int64_t p0, int64_t p_begin, int64_t p_end, int width, float* out) {
  for (int r = r_begin; r < r_end; ++r) {
    const float* src = data + (r0 + r) * ld + p0;
    for (int64_t p = p_begin; p < p_end; ++p) out[p * width + r] = src[p];
  }
}

// Copies the logical block op(X)[r0 : r0 + rows, p0 : p0 + kc] into out[p * width + r]
// (k-major, `width` floats per p; the caller zeroes lanes r >= rows). Each storage order gets
// the loop that reads it contiguously.
void pack_panel(const Operand& x, int64_t r0, int rows, int64_t p0, int64_t kc, int width,
                float* out) {
  if (x.transposed) {  // op(X)[r, p] = data[p * ld + r]: rows are contiguous per p
    for (int64_t p = 0; p < kc; ++p) {
      const float* src = x.f32() + (p0 + p) * x.ld + r0;
      for (int r = 0; r < rows; ++r) out[p * width + r] = src[r];  // a few floats: no memmove call
    }
    return;
  }
  // op(X)[r, p] = data[r * ld + p]: p is contiguous per row (B's panels from a transposed B):
  // whole blocks transposed in registers, the rest a float at a time.
  const int whole_rows = rows / simd::kLanes * simd::kLanes;
  const int64_t whole_p = kc / simd::kLanes * simd::kLanes;
  transpose_blocks(
      whole_rows, whole_p,
      [&](int r, int64_t p) { return simd::load(x.f32() + (r0 + r) * x.ld + p0 + p); }, out, width);
  copy_rows_into_panel(x.f32(), x.ld, r0, 0, whole_rows, p0, whole_p, kc, width, out);
  copy_rows_into_panel(x.f32(), x.ld, r0, whole_rows, rows, p0, 0, kc, width, out);
}

// Packs op(A)[i0 : i0 + mc, p0 : p0 + kc] as micro-panels of kMR rows (panel[p * kMR + r]),
// rows past mc zero. A is the left operand: op(A)[i, p] is row i of A, or column i of A^T.
void pack_a(const Operand& a, int64_t i0, int64_t mc, int64_t p0, int64_t kc, float* out) {
  for (int64_t ir = 0; ir < mc; ir += kMR) {
    const int rows = static_cast<int>(std::min<int64_t>(kMR, mc - ir));
    if (rows < kMR) std::fill_n(out, kc * kMR, 0.0f);
    pack_panel(a, i0 + ir, rows, p0, kc, kMR, out);
    out += kc * kMR;
  }
}

// Packs op(B)[p0 : p0 + kc, j0 : j0 + nc] as micro-panels of kNR columns (panel[p * kNR + c]),
// columns past nc zero. Column j of op(B) is row j of B^T, so B packs like A transposed.
void pack_b(const Operand& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) {
  const Operand bt{b.data, b.ld, !b.transposed};
  for (int64_t jr = 0; jr < nc; jr += kNR) {
    const int cols = static_cast<int>(std::min<int64_t>(kNR, nc - jr));
    if (cols < kNR) std::fill_n(out, kc * kNR, 0.0f);
    pack_panel(bt, j0 + jr, cols, p0, kc, kNR, out);
    out += kc * kNR;
  }
}

// Whether the tiles read a transposed A in place: its kc values of p are kc rows of storage, a
// few floats of each. Packing gathers those floats, and every thread packed all of A when
// threads split C's columns (backward-weight GEMMs of widening pointwise layers), so reading A in
// place saves that work. Rows a page or more apart fall into the same L1 sets, though, and evict
// each other before the next tile reads them, so those are packed.
bool columns_in_place(const Operand& a) {
  return a.ld * static_cast<int64_t>(sizeof(float)) < 4096;
}

}  // namespace

template <typename Out>
void multiply_float32(const Operand& a, const Operand& b, int64_t i0, int64_t i1, int64_t j0,
                      int64_t j1, int64_t k, int64_t depth, float alpha, float beta, Out* c,
                      int64_t ldc, float* blocks) {
  const int64_t block_nc = block_columns(depth);  // A's block of kMC rows first, then B's
  float* pa = blocks;
  float* pb = blocks + kMC * depth;
  for (int64_t jc = j0; jc < j1; jc += block_nc) {
    const int64_t nc = std::min(block_nc, j1 - jc);
    for (int64_t pc = 0; pc < k; pc += depth) {
      const int64_t kc = std::min(depth, k - pc);
      const float c_scale = pc == 0 ? beta : 1.0f;
      pack_b(b, pc, kc, jc, nc, pb);
      for (int64_t ic = i0; ic < i1; ic += kMC) {
        const int64_t mc = std::min(kMC, i1 - ic);
        // A is read in place, a row-major one row by row, a transposed one a p at a time (its
        // rows side by side), but for a last partial panel (rows past it must be 0).
        const int64_t packed_from = a.transposed && !columns_in_place(a) ? 0 : mc / kMR * kMR;
        pack_a(a, ic + packed_from, mc - packed_from, pc, kc, pa);
        // Only where the tiles read A's rows in place: with A packed (1024 channels and more)
        // asking ahead gained nothing, and cost a little on some shapes.
        RowsAhead ahead =
            packed_from == 0 ? RowsAhead{} : rows_ahead(a, b, i0, i1, ic, mc, jc, nc, pc, depth, k);
        for_each_tile(
            c, ldc, ic, mc, jc, nc, c_scale != 0.0f, ahead,
            [=](int64_t ir, int64_t jr, int rows, int cols, Out* c_tile) {
              if (ir >= packed_from) {
                float32_tile<APanel::kPacked>(kc, pa + (ir - packed_from) * kc, kMR, pb + jr * kc,
                                              alpha, c_scale, c_tile, ldc, rows, cols);
              } else if (a.transposed) {  // columns_in_place(a)
                float32_tile<APanel::kColumns>(kc, a.f32() + pc * a.ld + ic + ir, a.ld,
                                               pb + jr * kc, alpha, c_scale, c_tile, ldc, rows,
                                               cols);
              } else {
                float32_tile<APanel::kRows>(kc, a.f32() + (ic + ir) * a.ld + pc, a.ld, pb + jr * kc,
                                            alpha, c_scale, c_tile, ldc, rows, cols);
              }
            });
      }
    }
  }
}

template void multiply_float32(const Operand&, const Operand&, int64_t, int64_t, int64_t, int64_t,
                               int64_t, int64_t, float, float, float*, int64_t, float*);
template void multiply_float32(const Operand&, const Operand&, int64_t, int64_t, int64_t, int64_t,
                               int64_t, int64_t, float, float, BFloat16*, int64_t, float*);

int64_t second_half_start(int64_t m, int64_t n, int64_t k) {
  if (k < 2 * std::max(m, n) || k < 2 * kKC) return 0;
  const int64_t packing = kMC * kKC + kKC * (std::min(n, kNC) + kNR - 1) / kNR * kNR;
  if (packing + static_cast<int64_t>(AlignedBuffer::round_up(static_cast<size_t>(m * n))) >
      kBlockFloats) {
    return 0;
  }
  return (k / 2 + kKC - 1) / kKC * kKC;  // whole blocks, so bfloat16 pairs stay within a half
}

int64_t block_depth(int64_t k, bool trans_a, Precision precision) {
  const bool whole = k <= kWholeK && (precision == Precision::kBFloat16 || !trans_a);
  return whole ? std::max(k, kKC) : kKC;
}

}  // namespace gemm_tile

namespace {

using gemm_tile::kBlockFloats, gemm_tile::kKC, gemm_tile::kMC, gemm_tile::kMR, gemm_tile::kNC,
    gemm_tile::kNR, gemm_tile::Operand;

// The part of C that the micro-tile units [u0, u1) along C's larger side cover.
struct TileRange {
  int64_t i0, i1, j0, j1;
};
bool split_by_rows(int64_t m, int64_t n) { return m >= n; }
int64_t tile_units(int64_t m, int64_t n) {
  return split_by_rows(m, n) ? (m + kMR - 1) / kMR : (n + kNR - 1) / kNR;
}
TileRange tile_range(int64_t m, int64_t n, int64_t u0, int64_t u1) {
  if (split_by_rows(m, n)) return {u0 * kMR, std::min(m, u1 * kMR), 0, n};
  return {0, m, u0 * kNR, std::min(n, u1 * kNR)};
}

// Operand X from k0 on: op(X)'s columns (left) or rows (right) k0, k0 + 1, ...
Operand from_k(const Operand& x, bool left, int64_t k0) {
  const bool k_along_rows = left ? x.transposed : !x.transposed;  // k indexes storage rows
  return {x.data.at(k_along_rows ? k0 * x.ld : k0), x.ld, x.transposed};
}

// The thread's part of C in `precision`, k in blocks `depth` deep (block_depth).
template <typename Out>
void multiply(Precision precision, const Operand& a, const Operand& b, const TileRange& t,
              int64_t k, int64_t depth, float alpha, float beta, Out* c, int64_t ldc,
              float* blocks) {
  if (precision == Precision::kBFloat16) {
    gemm_tile::multiply_bf16(a, b, t.i0, t.i1, t.j0, t.j1, k, depth, alpha, beta, c, ldc, blocks);
  } else {
    gemm_tile::multiply_float32(a, b, t.i0, t.i1, t.j0, t.j1, k, depth, alpha, beta, c, ldc,
                                blocks);
  }
}

// C[i0 : i1, j0 : j1] = beta * C (k = 0: no product to add).
void scale_tile(int64_t i0, int64_t i1, int64_t j0, int64_t j1, float beta, float* c, int64_t ldc) {
  for (int64_t i = i0; i < i1; ++i) {
    float* row = c + i * ldc;
    for (int64_t j = j0; j < j1; ++j) row[j] = beta == 0.0f ? 0.0f : beta * row[j];
  }
}

}  // namespace

// Whole cache lines, so every thread's blocks stay 64-byte aligned in an aligned scratch.
static_assert((gemm_tile::kMC * gemm_tile::kKC) % 16 == 0 && gemm_tile::kBlockFloats % 16 == 0);

size_t thread_scratch_floats() { return gemm_tile::kBlockFloats; }

int64_t gemm_max_rounded_k(Precision precision) {
  return precision == Precision::kBFloat16 ? gemm_tile::kWholeK : gemm_tile::kKC;
}

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, ConstElements a,
          int64_t lda, ConstElements b, int64_t ldb, float beta, Elements c, int64_t ldc,
          const Exec& ex, Precision precision) {
  if (m == 0 || n == 0) return;
  XTRAIN_CHECK(precision == Precision::kBFloat16 ||
                   (a.type == ElementType::kFloat32 && b.type == ElementType::kFloat32),
               "gemm: bfloat16 operands need bfloat16 products");
  const bool rounded = c.type == ElementType::kBFloat16;
  XTRAIN_CHECK(!rounded || (k > 0 && k <= gemm_max_rounded_k(precision)),
               "gemm: a bfloat16 C takes one block of k's finished sums");
  const gemm_tile::Operand op_a{a, lda, trans_a}, op_b{b, ldb, trans_b};
  AlignedBuffer own;  // only outside plans, which hand every thread its blocks
  float* scratch = ex.scratch;
  if (scratch == nullptr && k > 0) {
    own = AlignedBuffer::uninitialized(ex.num_threads() * thread_scratch_floats());
    scratch = own.data();
  }
  auto blocks = [&](int chunk) { return scratch + chunk * thread_scratch_floats(); };
  // Threads split C into whole micro-tiles along its larger side, each packing the part of B (or
  // A) it needs itself: one fork-join per call, no barrier per block.
  const int64_t units = tile_units(m, n);
  const int64_t depth = gemm_tile::block_depth(k, trans_a, precision);
  const int64_t half = depth >= k ? 0 : gemm_tile::second_half_start(m, n, k);
  if (half == 0) {
    parallel_for_chunks(ex, units, [&](int chunk, int64_t u0, int64_t u1) {
      const TileRange t = tile_range(m, n, u0, u1);
      if (rounded) {
        multiply(precision, op_a, op_b, t, k, depth, alpha, beta, c.bf16(), ldc, blocks(chunk));
      } else if (k == 0) {
        scale_tile(t.i0, t.i1, t.j0, t.j1, beta, c.f32(), ldc);
      } else {
        multiply(precision, op_a, op_b, t, k, depth, alpha, beta, c.f32(), ldc, blocks(chunk));
      }
    });
    return;
  }
  // Units [0, units) sum the first half of k into C, [units, 2 units) the second into its own.
  float* second = scratch + ex.num_threads() * thread_scratch_floats() -
                  AlignedBuffer::round_up(static_cast<size_t>(m * n));
  const Operand a_second = from_k(op_a, true, half), b_second = from_k(op_b, false, half);
  parallel_for_chunks(ex, 2 * units, [&](int chunk, int64_t u0, int64_t u1) {
    if (u0 < units) {
      const TileRange t = tile_range(m, n, u0, std::min(u1, units));
      multiply(precision, op_a, op_b, t, half, kKC, alpha, beta, c.f32(), ldc, blocks(chunk));
    }
    if (u1 > units) {
      const TileRange t = tile_range(m, n, std::max(u0, units) - units, u1 - units);
      multiply(precision, a_second, b_second, t, k - half, kKC, alpha, 0.0f, second, n,
               blocks(chunk));
    }
  });
  float* sums = c.f32();
  parallel_for(ex, m, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      for (int64_t j = 0; j < n; ++j) sums[i * ldc + j] += second[i * n + j];
    }
  });
}

}  // namespace xtrain::kernels
