#include "lib/kernels/gemm.h"

#include <Eigen/Core>

namespace xtrain::kernels {
namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
using Map = Eigen::Map<RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;

// Rows per chunk below which splitting costs more than it saves.
constexpr int64_t kMinChunk = 32;

// One single-threaded block of C: rows [r0, r1) and columns [c0, c1).
void gemm_block(bool trans_a, bool trans_b, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                float beta, float* c, int64_t ldc) {
  const int64_t rows = r1 - r0, cols = c1 - c0;
  Map C(c + r0 * ldc + c0, rows, cols, Eigen::OuterStride<>(ldc));
  if (beta == 0.0f) {
    C.setZero();
  } else if (beta != 1.0f) {
    C *= beta;
  }
  if (k == 0) return;
  const float* a0 = trans_a ? a + r0 : a + r0 * lda;
  const float* b0 = trans_b ? b + c0 * ldb : b + c0;
  if (!trans_a && !trans_b) {
    C.noalias() += alpha * ConstMap(a0, rows, k, Eigen::OuterStride<>(lda)) *
                   ConstMap(b0, k, cols, Eigen::OuterStride<>(ldb));
  } else if (!trans_a && trans_b) {
    C.noalias() += alpha * ConstMap(a0, rows, k, Eigen::OuterStride<>(lda)) *
                   ConstMap(b0, cols, k, Eigen::OuterStride<>(ldb)).transpose();
  } else if (trans_a && !trans_b) {
    C.noalias() += alpha * ConstMap(a0, k, rows, Eigen::OuterStride<>(lda)).transpose() *
                   ConstMap(b0, k, cols, Eigen::OuterStride<>(ldb));
  } else {
    C.noalias() += alpha * ConstMap(a0, k, rows, Eigen::OuterStride<>(lda)).transpose() *
                   ConstMap(b0, cols, k, Eigen::OuterStride<>(ldb)).transpose();
  }
}

}  // namespace

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
          const Exec& ex) {
  if (m == 0 || n == 0) return;
  if (m >= n) {
    parallel_for(
        ex, m,
        [&](int64_t r0, int64_t r1) {
          gemm_block(trans_a, trans_b, r0, r1, 0, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        },
        kMinChunk);
  } else {
    parallel_for(
        ex, n,
        [&](int64_t c0, int64_t c1) {
          gemm_block(trans_a, trans_b, 0, m, c0, c1, k, alpha, a, lda, b, ldb, beta, c, ldc);
        },
        kMinChunk);
  }
}

}  // namespace xtrain::kernels
