// gemm: the one matrix multiply of the engine, over Eigen::Map (no copies).
// All matrices are row-major with leading dimensions (elements between row starts).
#pragma once

#include <cstdint>

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

// C[m, n] = alpha * op(A) * op(B) + beta * C, where op(A) is [m, k] (A stored [k, m] when
// trans_a) and op(B) is [k, n] (B stored [n, k] when trans_b). The work is split over the
// threads of ex by blocks of C's rows (or columns when C is wide), so each element of C is
// computed by exactly one thread and the result does not depend on timing.
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
          const Exec& ex);

}  // namespace xtrain::kernels
