// gemm against Eigen's product in double, an oracle independent of our packing and tiling: all four
// dimensions wider than the matrices, splits by rows and by columns, and 1 vs 2 threads.
#include "lib/kernels/gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "lib/kernels/gemm_tile.h"
#include "tests/kernels/gemm_cases.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using testing::all_transposes;
using testing::describe;
using testing::eigen_gemm;
using testing::expect_bitwise_equal;
using testing::fast_gemm;
using testing::GemmCase;
using testing::GemmData;

constexpr float kRtol = 1e-4f;

void expect_matches_eigen(const GemmCase& g, const Exec& ex) {
  testing::expect_matches_eigen(g, GemmData(g), ex, Precision::kFloat32, kRtol);
}

TEST(GemmKernel, SmallOddShapesMatchEigen) {
  for (const GemmCase& g : all_transposes(7, 5, 3, 0)) expect_matches_eigen(g, Exec{});
  for (const GemmCase& g : all_transposes(1, 13, 1, 0)) expect_matches_eigen(g, Exec{});
  for (const GemmCase& g : all_transposes(13, 1, 37, 0)) expect_matches_eigen(g, Exec{});
}

// Leading dimensions larger than the widths: the gaps are skipped in A and B and left
// untouched in C. A transposed A is read in place, or packed when its rows lie a page or more
// apart (the last case).
TEST(GemmKernel, WideLeadingDimensionsMatchEigen) {
  for (const GemmCase& g : all_transposes(7, 5, 3, 3)) expect_matches_eigen(g, Exec{});
  for (const GemmCase& g : all_transposes(37, 29, 53, 5)) expect_matches_eigen(g, Exec{});
  for (const GemmCase& g : all_transposes(37, 29, 53, 1000)) expect_matches_eigen(g, Exec{});
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

// A row-major A up to kWholeK deep is summed in one block of all of k (a transposed one in kKC's
// blocks): on one thread, the deepest block's columns of B and rows of A in more than one block.
TEST(GemmKernel, ProductsInOneBlockOfAllOfKMatchEigen) {
  testing::PoolExec two(2);
  for (const GemmCase& g : all_transposes(150, 40, 1100, 2)) {
    expect_matches_eigen(g, Exec{});
    expect_matches_eigen(g, two.exec());
  }
  for (const GemmCase& g : all_transposes(145, 200, 2048, 0)) expect_matches_eigen(g, Exec{});
}

// Deep products (k past twice C's larger side: backward-weight GEMMs over a batch's pixels) are
// summed in two halves of k, each thread streaming rows of its own.
TEST(GemmKernel, DeepProductsMatchEigen) {
  testing::PoolExec two(2);
  for (const GemmCase& g : all_transposes(45, 70, 2300, 1)) {
    ASSERT_NE(kernels::gemm_tile::second_half_start(g.m, g.n, g.k), 0);
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
// split, so reruns on two threads and runs on one and three threads agree bit for bit, in both
// precisions. The second and fourth are deep (summed in halves of k; three threads split a half
// between two of them).
TEST(GemmKernel, RerunsAndThreadCountsAreBitwiseEqual) {
  testing::PoolExec two(2), three(3);
  for (Precision precision : {Precision::kFloat32, Precision::kBFloat16}) {
    for (const GemmCase& g : {GemmCase{false, false, 3136, 64, 576, 1.0f, 0.0f},
                              GemmCase{true, false, 577, 67, 3137, 1.0f, 1.0f},
                              GemmCase{false, true, 197, 1030, 513, 1.0f, 0.0f},
                              GemmCase{true, false, 64, 256, 3000, 0.5f, 1.0f}}) {
      SCOPED_TRACE(describe(g) + " " + name(precision));
      const GemmData d(g);
      const std::vector<float> first = fast_gemm(g, d, two.exec(), precision);
      expect_bitwise_equal(first, fast_gemm(g, d, two.exec(), precision), "C, rerun");
      expect_bitwise_equal(first, fast_gemm(g, d, Exec{}, precision), "C, one thread");
      expect_bitwise_equal(first, fast_gemm(g, d, three.exec(), precision), "C, three threads");
    }
  }
}

// In a plan every thread packs into its own slice of Exec::scratch, sized exactly as declared
// (an overrun is a heap overflow under AddressSanitizer); the result is the same bits as with
// blocks allocated for the call.
// A deep product keeps its second half's sum in the scratch too.
TEST(GemmKernel, PacksIntoTheExecsScratch) {
  testing::PoolExec three(3);
  for (Precision precision : {Precision::kFloat32, Precision::kBFloat16}) {
    for (const GemmCase& g : {GemmCase{false, false, 3136, 64, 576, 1.0f, 0.0f},
                              GemmCase{true, false, 256, 512, 4096, 1.0f, 1.0f}}) {
      SCOPED_TRACE(describe(g) + " " + name(precision));
      const GemmData d(g);
      std::vector<float> scratch(3 * kernels::thread_scratch_floats());
      Exec planned = three.exec();
      planned.scratch = scratch.data();
      expect_bitwise_equal(fast_gemm(g, d, planned, precision),
                           fast_gemm(g, d, three.exec(), precision), "C");
      EXPECT_NE(std::count(scratch.begin(), scratch.end(), 0.0f), static_cast<long>(scratch.size()))
          << "the scratch was not used";
    }
  }
}

}  // namespace
}  // namespace xtrain
