// The GEMM tests' problems: sizes, transposes, scalars and leading dimensions, their data with
// sentinels in the gaps, and the oracle, Eigen's product in double (independent of our packing and
// tiling). Shared by gemm_test.cpp (float32) and gemm_bf16_test.cpp.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "lib/kernels/gemm.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain::testing {

constexpr float kSentinel = -12345.0f;  // fills the gaps between rows (ld > width)

// One problem: sizes, transposes, scalars and leading dimensions (0: as tight as possible).
struct GemmCase {
  bool trans_a, trans_b;
  int64_t m, n, k;
  float alpha, beta;
  int64_t lda_extra = 0, ldb_extra = 0, ldc_extra = 0;

  int64_t a_rows() const { return trans_a ? k : m; }
  int64_t a_cols() const { return trans_a ? m : k; }
  int64_t b_rows() const { return trans_b ? n : k; }
  int64_t b_cols() const { return trans_b ? k : n; }
  int64_t lda() const { return a_cols() + lda_extra; }
  int64_t ldb() const { return b_cols() + ldb_extra; }
  int64_t ldc() const { return n + ldc_extra; }
};

inline std::string describe(const GemmCase& g) {
  return std::string(g.trans_a ? "A^T" : "A") + (g.trans_b ? " B^T" : " B") +
         " m=" + std::to_string(g.m) + " n=" + std::to_string(g.n) + " k=" + std::to_string(g.k) +
         " alpha=" + std::to_string(g.alpha) + " beta=" + std::to_string(g.beta) +
         " lda=" + std::to_string(g.lda()) + " ldb=" + std::to_string(g.ldb()) +
         " ldc=" + std::to_string(g.ldc());
}

// A matrix of `rows` x `cols` stored with leading dimension ld: random values in the matrix,
// the sentinel in the gaps.
inline std::vector<float> strided_matrix(int64_t rows, int64_t cols, int64_t ld, uint32_t seed) {
  const std::vector<float> values = testing::random_floats(rows * cols, seed);
  std::vector<float> out(rows * ld, kSentinel);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) out[r * ld + c] = values[r * cols + c];
  }
  return out;
}

struct GemmData {
  explicit GemmData(const GemmCase& g)
      : a(strided_matrix(g.a_rows(), g.a_cols(), g.lda(), 1)),
        b(strided_matrix(g.b_rows(), g.b_cols(), g.ldb(), 2)),
        c(strided_matrix(g.m, g.n, g.ldc(), 3)) {}
  std::vector<float> a, b, c;
};

// A row-major matrix with leading dimension ld, seen by Eigen.
using StridedMatrix =
    Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>,
               Eigen::Unaligned, Eigen::OuterStride<>>;

inline StridedMatrix as_eigen(const std::vector<float>& m, int64_t rows, int64_t cols, int64_t ld) {
  return StridedMatrix(m.data(), rows, cols, Eigen::OuterStride<>(ld));
}

// The oracle, independent of our packing and tiling: C = alpha * op(A) op(B) + beta * C by
// Eigen's product in double; the gaps are left alone.
inline std::vector<float> eigen_gemm(const GemmCase& g, const GemmData& d) {
  const StridedMatrix a = as_eigen(d.a, g.a_rows(), g.a_cols(), g.lda());
  const StridedMatrix b = as_eigen(d.b, g.b_rows(), g.b_cols(), g.ldb());
  const StridedMatrix c = as_eigen(d.c, g.m, g.n, g.ldc());
  const Eigen::MatrixXd a_double = a.cast<double>(), b_double = b.cast<double>();
  const Eigen::MatrixXd op_a = g.trans_a ? a_double.transpose() : a_double;
  const Eigen::MatrixXd op_b = g.trans_b ? b_double.transpose() : b_double;
  const Eigen::MatrixXd result =
      double{g.alpha} * (op_a * op_b) + double{g.beta} * c.cast<double>();
  std::vector<float> out = d.c;
  for (int64_t i = 0; i < g.m; ++i) {
    for (int64_t j = 0; j < g.n; ++j) out[i * g.ldc() + j] = static_cast<float>(result(i, j));
  }
  return out;
}

inline std::vector<float> fast_gemm(const GemmCase& g, const GemmData& d, const Exec& ex,
                                    Precision precision = Precision::kFloat32) {
  std::vector<float> c = d.c;
  kernels::gemm(g.trans_a, g.trans_b, g.m, g.n, g.k, g.alpha, d.a.data(), g.lda(), d.b.data(),
                g.ldb(), g.beta, c.data(), g.ldc(), ex, precision);
  return c;
}

// Compares gemm in `precision` with Eigen on the same data (closeness as
// expect_close_to_reference); the sentinels between C's rows must survive (exactly).
inline void expect_matches_eigen(const GemmCase& g, const GemmData& d, const Exec& ex,
                                 Precision precision, float rtol) {
  SCOPED_TRACE(describe(g));
  const std::vector<float> fast = fast_gemm(g, d, ex, precision), eigen = eigen_gemm(g, d);
  expect_close_to_reference(fast, eigen, rtol, "C");
  for (int64_t r = 0; r < g.m; ++r) {
    for (int64_t c = g.n; c < g.ldc(); ++c) {
      ASSERT_EQ(fast[r * g.ldc() + c], kSentinel) << "gap of C overwritten at row " << r;
    }
  }
}

// The four transpose combinations, each with beta 0, 1 and a general value.
inline std::vector<GemmCase> all_transposes(int64_t m, int64_t n, int64_t k, int64_t extra) {
  std::vector<GemmCase> cases;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (float beta : {0.0f, 1.0f, -0.5f}) {
        cases.push_back(GemmCase{ta, tb, m, n, k, 1.5f, beta, extra, 2 * extra, 3 * extra});
      }
    }
  }
  return cases;
}

}  // namespace xtrain::testing
