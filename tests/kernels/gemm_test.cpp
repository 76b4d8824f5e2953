// gemm against Eigen's product in double, an oracle independent of our packing and tiling: all four
// dimensions wider than the matrices, splits by rows and by columns, and 1 vs 2 threads.
#include "lib/kernels/gemm.h"

#include <gtest/gtest.h>

#include <Eigen/Core>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using testing::expect_bitwise_equal;
using testing::expect_close_to_reference;
using testing::random_floats;

constexpr float kRtol = 1e-4f;
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

std::string describe(const GemmCase& g) {
  return std::string(g.trans_a ? "A^T" : "A") + (g.trans_b ? " B^T" : " B") +
         " m=" + std::to_string(g.m) + " n=" + std::to_string(g.n) + " k=" + std::to_string(g.k) +
         " alpha=" + std::to_string(g.alpha) + " beta=" + std::to_string(g.beta) +
         " lda=" + std::to_string(g.lda()) + " ldb=" + std::to_string(g.ldb()) +
         " ldc=" + std::to_string(g.ldc());
}

// A matrix of `rows` x `cols` stored with leading dimension ld: random values in the matrix,
// the sentinel in the gaps.
std::vector<float> strided_matrix(int64_t rows, int64_t cols, int64_t ld, uint32_t seed) {
  const std::vector<float> values = random_floats(rows * cols, seed);
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
using StridedMatrix = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic,
                                                      Eigen::RowMajor>,
                                 Eigen::Unaligned, Eigen::OuterStride<>>;

StridedMatrix as_eigen(const std::vector<float>& m, int64_t rows, int64_t cols, int64_t ld) {
  return StridedMatrix(m.data(), rows, cols, Eigen::OuterStride<>(ld));
}

// The oracle, independent of our packing and tiling: C = alpha * op(A) op(B) + beta * C by
// Eigen's product in double; the gaps are left alone.
std::vector<float> eigen_gemm(const GemmCase& g, const GemmData& d) {
  const StridedMatrix a = as_eigen(d.a, g.a_rows(), g.a_cols(), g.lda());
  const StridedMatrix b = as_eigen(d.b, g.b_rows(), g.b_cols(), g.ldb());
  const StridedMatrix c = as_eigen(d.c, g.m, g.n, g.ldc());
  const Eigen::MatrixXd a_double = a.cast<double>(), b_double = b.cast<double>();
  const Eigen::MatrixXd op_a = g.trans_a ? a_double.transpose() : a_double;
  const Eigen::MatrixXd op_b = g.trans_b ? b_double.transpose() : b_double;
  const Eigen::MatrixXd result = double{g.alpha} * (op_a * op_b) + double{g.beta} * c.cast<double>();
  std::vector<float> out = d.c;
  for (int64_t i = 0; i < g.m; ++i) {
    for (int64_t j = 0; j < g.n; ++j) out[i * g.ldc() + j] = static_cast<float>(result(i, j));
  }
  return out;
}

std::vector<float> fast_gemm(const GemmCase& g, const GemmData& d, const Exec& ex) {
  std::vector<float> c = d.c;
  kernels::gemm(g.trans_a, g.trans_b, g.m, g.n, g.k, g.alpha, d.a.data(), g.lda(), d.b.data(),
                g.ldb(), g.beta, c.data(), g.ldc(), ex);
  return c;
}

// Compares with Eigen; the sentinels between C's rows must survive (exactly).
void expect_matches_eigen(const GemmCase& g, const Exec& ex) {
  SCOPED_TRACE(describe(g));
  const GemmData d(g);
  const std::vector<float> fast = fast_gemm(g, d, ex), eigen = eigen_gemm(g, d);
  expect_close_to_reference(fast, eigen, kRtol, "C");
  for (int64_t r = 0; r < g.m; ++r) {
    for (int64_t c = g.n; c < g.ldc(); ++c) {
      ASSERT_EQ(fast[r * g.ldc() + c], kSentinel) << "gap of C overwritten at row " << r;
    }
  }
}

// The four transpose combinations, each with beta 0, 1 and a general value.
std::vector<GemmCase> all_transposes(int64_t m, int64_t n, int64_t k, int64_t extra) {
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

TEST(GemmKernel, SmallOddShapesMatchEigen) {
  for (const GemmCase& g : all_transposes(7, 5, 3, 0)) expect_matches_eigen(g, Exec{});
  for (const GemmCase& g : all_transposes(1, 13, 1, 0)) expect_matches_eigen(g, Exec{});
  for (const GemmCase& g : all_transposes(13, 1, 37, 0)) expect_matches_eigen(g, Exec{});
}

// Leading dimensions larger than the widths: the gaps are skipped in A and B and left
// untouched in C.
TEST(GemmKernel, WideLeadingDimensionsMatchEigen) {
  for (const GemmCase& g : all_transposes(7, 5, 3, 3)) expect_matches_eigen(g, Exec{});
  for (const GemmCase& g : all_transposes(37, 29, 53, 5)) expect_matches_eigen(g, Exec{});
}

// Sizes past the cache blocks (k > kKC = 256, m > kMC = 144) and not multiples of the 6 x 16
// micro-tile, tall (split by rows) and wide (split by columns), on one and two threads.
TEST(GemmKernel, LargeShapesMatchEigenOnOneAndTwoThreads) {
  testing::PoolExec two(2);
  for (const GemmCase& g : all_transposes(197, 70, 301, 3)) {
    expect_matches_eigen(g, Exec{});
    expect_matches_eigen(g, two.exec());
  }
  for (const GemmCase& g : all_transposes(45, 259, 130, 1)) {
    expect_matches_eigen(g, Exec{});
    expect_matches_eigen(g, two.exec());
  }
}

// n past the kNC column block, so C's columns come from several packed blocks of B.
TEST(GemmKernel, WiderThanOneBlockOfBMatchesEigen) {
  testing::PoolExec two(2);
  for (const GemmCase& g : all_transposes(13, 1100, 300, 0)) expect_matches_eigen(g, two.exec());
}

// k = 0: op(A) op(B) is empty, so C = beta * C (alpha plays no part).
TEST(GemmKernel, EmptyInnerDimensionScalesC) {
  for (float beta : {0.0f, 1.0f, 2.5f}) {
    const GemmCase g{false, false, 3, 4, 0, 1.5f, beta, 0, 0, 2};
    expect_matches_eigen(g, Exec{});
  }
}

// A 2x3 times 3x2 product by hand, accumulated onto C with alpha 2 and beta -1.
TEST(GemmKernel, HandExample) {
  const std::vector<float> a = {1, 2, 3,  // [2, 3]
                                4, 5, 6};
  const std::vector<float> b = {1, 0,  // [3, 2]
                                0, 1,  //
                                1, 1};
  std::vector<float> c = {10, 20, 30, 40};
  kernels::gemm(false, false, 2, 2, 3, 2.0f, a.data(), 3, b.data(), 2, -1.0f, c.data(), 2, Exec{});
  // A B = {{4, 5}, {10, 11}}
  EXPECT_EQ(c, (std::vector<float>{2 * 4 - 10, 2 * 5 - 20, 2 * 10 - 30, 2 * 11 - 40}));

  // The same product from transposed storage: A^T stored [3, 2], B^T stored [2, 3].
  const std::vector<float> at = {1, 4, 2, 5, 3, 6}, bt = {1, 0, 1, 0, 1, 1};
  std::vector<float> c2(4, 0.0f);
  kernels::gemm(true, true, 2, 2, 3, 1.0f, at.data(), 2, bt.data(), 3, 0.0f, c2.data(), 2, Exec{});
  EXPECT_EQ(c2, (std::vector<float>{4, 5, 10, 11}));
}

// The documented guarantee: every element is summed over k in one fixed order whatever the
// split, so reruns on two threads and a run on one thread agree bit for bit.
TEST(GemmKernel, RerunsAndThreadCountsAreBitwiseEqual) {
  testing::PoolExec two(2);
  for (const GemmCase& g : {GemmCase{false, false, 3136, 64, 576, 1.0f, 0.0f},
                            GemmCase{true, false, 577, 67, 3137, 1.0f, 1.0f},
                            GemmCase{false, true, 197, 1030, 513, 1.0f, 0.0f}}) {
    SCOPED_TRACE(describe(g));
    const GemmData d(g);
    const std::vector<float> first = fast_gemm(g, d, two.exec());
    expect_bitwise_equal(first, fast_gemm(g, d, two.exec()), "C, rerun");
    expect_bitwise_equal(first, fast_gemm(g, d, Exec{}), "C, one thread");
  }
}

// In a plan every thread packs into its own slice of Exec::scratch, sized exactly as declared
// (an overrun is a heap overflow under AddressSanitizer); the result is the same bits as with
// blocks allocated for the call.
TEST(GemmKernel, PacksIntoTheExecsScratch) {
  testing::PoolExec three(3);
  const GemmCase g{false, false, 3136, 64, 576, 1.0f, 0.0f};
  const GemmData d(g);
  std::vector<float> scratch(3 * kernels::thread_scratch_floats());
  Exec planned = three.exec();
  planned.scratch = scratch.data();
  expect_bitwise_equal(fast_gemm(g, d, planned), fast_gemm(g, d, three.exec()), "C");
  EXPECT_NE(std::count(scratch.begin(), scratch.end(), 0.0f), static_cast<long>(scratch.size()))
      << "the scratch was not used";
}

}  // namespace
}  // namespace xtrain
