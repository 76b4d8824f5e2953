// gemm: the one matrix multiply of the engine. A packed, cache-blocked GEMM around a
// register-blocked micro-kernel (gemm_tile.h): panels of A and B are copied into contiguous blocks
// that stay in L1/L2 while a kMR x kNR tile of C accumulates in registers. In bfloat16 the panels
// hold A and B rounded to bfloat16, in pairs along k for AVX512_BF16's dot product (gemm_bf16.cpp).
// All matrices are row-major with leading dimensions (elements between row starts): A and B
// float32 or, for bfloat16 products, bfloat16 (activations a bfloat16 plan stores so); C float32
// or, for a product summed in one block of k, bfloat16.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lib/kernels/thread_scratch.h"
#include "lib/parallel/exec.h"
#include "lib/tensor/elements.h"
#include "lib/tensor/precision.h"

namespace xtrain::kernels {

// The deepest product gemm() stores in a bfloat16 C: one cache block of k, whose sums are final
// as each register tile is stored (256 deep; 2048 for bfloat16 products).
int64_t gemm_max_rounded_k(Precision precision);

// C[m, n] = alpha * op(A) * op(B) + beta * C in `precision` (precision.h), where op(A) is [m, k] (A
// stored [k, m] when trans_a) and op(B) is [k, n] (B stored [n, k] when trans_b). With beta = 0, C
// is not read. C is float32, or bfloat16 (0 < k <= gemm_max_rounded_k(precision)): each element
// its float32 sum, plus beta times its old value, rounded once as it is stored, where a pass over
// a float32 C would round it later. The threads of ex split C by rows (or by columns when C is
// wide), and a deep bfloat16 product also by halves of k (gemm_tile.h); every element is summed
// over k in the same fixed order whatever the split, so results are bitwise independent of the
// thread count. Each thread packs into its slice of ex.scratch (allocated for the call when null);
// a deep product keeps its second half's sum at the end of the last slice.
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, ConstElements a,
          int64_t lda, ConstElements b, int64_t ldb, float beta, Elements c, int64_t ldc,
          const Exec& ex, Precision precision = Precision::kFloat32);

}  // namespace xtrain::kernels
