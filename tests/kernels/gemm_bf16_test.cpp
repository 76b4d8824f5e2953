// gemm in bfloat16: on inputs already rounded to bfloat16 it must match Eigen's double product as
// tightly as float32 does (each product of two bfloat16 is exact in float32, only the float32 sums
// round); on float32 inputs it must stay within the rounding bound; and it must give the bits of
// a scalar model of AVX512_BF16's vdpbf16ps, whichever path the build takes (the instruction, or
// its emulation on other CPUs and portable builds).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "lib/base/check.h"
#include "lib/kernels/gemm.h"
#include "lib/kernels/gemm_tile.h"
#include "lib/tensor/bfloat16.h"
#include "tests/kernels/gemm_cases.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using testing::all_transposes;
using testing::describe;
using testing::expect_bitwise_equal;
using testing::fast_gemm;
using testing::GemmCase;
using testing::GemmData;
using testing::kSentinel;

constexpr float kRtol = 1e-4f;  // as the float32 GEMM's: the same float32 sums

// The case's data with A and B rounded to bfloat16, so the products are exact.
GemmData rounded_data(const GemmCase& g) {
  GemmData d(g);
  for (float& x : d.a) x = round_to_bfloat16(x);
  for (float& x : d.b) x = round_to_bfloat16(x);
  return d;
}

void expect_matches_eigen_on_rounded_inputs(const GemmCase& g, const Exec& ex) {
  testing::expect_matches_eigen(g, rounded_data(g), ex, Precision::kBFloat16, kRtol);
}

TEST(GemmBFloat16, RoundedInputsMatchEigenAsTightlyAsFloat32) {
  testing::PoolExec two(2);
  for (const GemmCase& g : all_transposes(7, 5, 3, 0)) {
    expect_matches_eigen_on_rounded_inputs(g, Exec{});
  }
  for (const GemmCase& g : all_transposes(13, 1, 37, 3)) {
    expect_matches_eigen_on_rounded_inputs(g, Exec{});
  }
  // Past the cache blocks (k > kKC, odd k in the last block; m > kMC), tall and wide.
  for (const GemmCase& g : all_transposes(197, 70, 301, 3)) {
    expect_matches_eigen_on_rounded_inputs(g, two.exec());
  }
  for (const GemmCase& g : all_transposes(45, 259, 130, 1)) {
    expect_matches_eigen_on_rounded_inputs(g, two.exec());
  }
  for (const GemmCase& g : all_transposes(13, 1100, 300, 0)) {
    expect_matches_eigen_on_rounded_inputs(g, two.exec());
  }
  // One block of all of k (gemm_tile::kWholeK; on one thread, the deepest block's
  // columns of B and rows of A in more than one block), and a deep product summed in two halves.
  for (const GemmCase& g : all_transposes(150, 40, 1100, 2)) {
    expect_matches_eigen_on_rounded_inputs(g, two.exec());
  }
  for (const GemmCase& g : all_transposes(145, 390, 2048, 0)) {
    expect_matches_eigen_on_rounded_inputs(g, Exec{});
  }
  for (const GemmCase& g : all_transposes(70, 9, 2300, 2)) {
    expect_matches_eigen_on_rounded_inputs(g, two.exec());
  }
  for (float beta : {0.0f, 1.0f, 2.5f}) {  // k = 0: C = beta * C
    expect_matches_eigen_on_rounded_inputs(GemmCase{false, false, 3, 4, 0, 1.5f, beta, 0, 0, 2},
                                           Exec{});
  }
}

// bfloat16 keeps 8 significant bits: each float32 operand rounds to within 2^-8 of itself, so
// each product to within (1 + 2^-8)^2 - 1 < 2^-7 of |a b|, and |C - exact| <= 2^-7 |alpha|
// (|A| |B|) plus the float32 sums' rounding, judged as in the float32 tests.
TEST(GemmBFloat16, FloatInputsStayWithinTheRoundingBound) {
  for (const GemmCase& g : all_transposes(37, 29, 301, 2)) {
    SCOPED_TRACE(describe(g));
    const GemmData d(g);
    std::vector<float> product = d.c;  // alpha op(A) op(B) alone
    kernels::gemm(g.trans_a, g.trans_b, g.m, g.n, g.k, g.alpha, d.a.data(), g.lda(), d.b.data(),
                  g.ldb(), 0.0f, product.data(), g.ldc(), Exec{}, Precision::kBFloat16);
    GemmCase exact_case = g;
    exact_case.beta = 0.0f;
    const std::vector<float> exact = testing::eigen_gemm(exact_case, d);
    GemmData magnitudes = d;  // |A| |B| by the same oracle
    for (float& x : magnitudes.a) x = std::fabs(x);
    for (float& x : magnitudes.b) x = std::fabs(x);
    exact_case.alpha = 1.0f;
    const std::vector<float> bound = testing::eigen_gemm(exact_case, magnitudes);
    const float scale = testing::max_abs(exact);
    int failures = 0;
    for (int64_t i = 0; i < g.m && failures < 5; ++i) {
      for (int64_t j = 0; j < g.n && failures < 5; ++j) {
        const int64_t at = i * g.ldc() + j;
        const float allowed = std::ldexp(std::fabs(g.alpha) * bound[at], -7) + kRtol * scale;
        if (std::fabs(product[at] - exact[at]) > allowed) {
          ADD_FAILURE() << "C[" << i << ", " << j << "] = " << product[at] << ", exact "
                        << exact[at] << ", allowed error " << allowed;
          ++failures;
        }
      }
    }
  }
}

// vdpbf16ps on one lane: acc + a[2q + 1] b[2q + 1], rounded, then + a[2q] b[2q], rounded (the
// products are exact). The model sums each element so over every block of k in order (kKC deep,
// or all of k: gemm_tile::block_depth), and adds the blocks to C as the GEMM does; a deep
// product's blocks from `second_half` on go to a sum of their own, added to C last. beta is 0 or 1
// and alpha 1, so scaling C rounds nothing and every result is determined to the bit.
std::vector<float> dot_product_model(const GemmCase& g, const GemmData& d, int64_t second_half) {
  const int64_t depth = kernels::gemm_tile::block_depth(g.k, g.trans_a, Precision::kBFloat16);
  auto a = [&](int64_t i, int64_t p) {
    const float x = g.trans_a ? d.a[p * g.lda() + i] : d.a[i * g.lda() + p];
    return round_to_bfloat16(x);
  };
  auto b = [&](int64_t p, int64_t j) {
    const float x = g.trans_b ? d.b[j * g.ldb() + p] : d.b[p * g.ldb() + j];
    return round_to_bfloat16(x);
  };
  std::vector<float> c = d.c;
  for (int64_t i = 0; i < g.m; ++i) {
    for (int64_t j = 0; j < g.n; ++j) {
      float& out = c[i * g.ldc() + j];
      float second = 0.0f;
      for (int64_t p0 = 0; p0 < g.k; p0 += depth) {
        const int64_t end = std::min(g.k, p0 + depth);
        float acc = 0.0f;
        for (int64_t p = p0; p < end; p += 2) {
          if (p + 1 < end) acc += a(i, p + 1) * b(p + 1, j);
          acc += a(i, p) * b(p, j);
        }
        if (second_half > 0 && p0 >= second_half) {
          second = p0 == second_half ? acc : second + acc;
        } else {
          out = (p0 == 0 && g.beta == 0.0f) ? acc : out + acc;
        }
      }
      if (second_half > 0) out += second;
    }
  }
  return c;
}

// Products up to kWholeK deep are summed in one block of k; deeper ones (the last two
// shapes, C tall and wide) in two halves of k, in kKC's blocks.
TEST(GemmBFloat16, GivesTheBitsOfTheDotProductInstruction) {
  testing::PoolExec two(2);
  for (const auto& [m, n, k] : {std::array<int64_t, 3>{7, 5, 3},
                                {45, 70, 301},
                                {150, 40, 1100},
                                {13, 40, 2049},
                                {70, 9, 2300}}) {
    const bool deep = k > kernels::gemm_tile::kWholeK;  // else one block of all of k
    const int64_t second_half = deep ? kernels::gemm_tile::second_half_start(m, n, k) : 0;
    if (deep) {
      ASSERT_NE(second_half, 0) << "m=" << m << " n=" << n << " k=" << k;
    }
    for (GemmCase g : all_transposes(m, n, k, 1)) {
      if (g.beta != 0.0f && g.beta != 1.0f) continue;
      g.alpha = 1.0f;
      SCOPED_TRACE(describe(g));
      const GemmData d(g);
      expect_bitwise_equal(fast_gemm(g, d, two.exec(), Precision::kBFloat16),
                           dot_product_model(g, d, second_half), "C");
    }
  }
}

// A bfloat16 plan hands the GEMM activations stored in bfloat16: A and B read so give the bits
// their values give as floats, in every storage order.
TEST(GemmBFloat16, BFloat16OperandsGiveTheBitsOfTheirFloatValues) {
  for (const GemmCase& g : all_transposes(45, 70, 301, 1)) {
    SCOPED_TRACE(describe(g));
    const GemmData d = rounded_data(g);
    std::vector<BFloat16> a, b;
    for (float x : d.a) a.push_back(to_bfloat16(x));
    for (float x : d.b) b.push_back(to_bfloat16(x));
    std::vector<float> c = d.c;
    kernels::gemm(g.trans_a, g.trans_b, g.m, g.n, g.k, g.alpha, a.data(), g.lda(), b.data(),
                  g.ldb(), g.beta, c.data(), g.ldc(), Exec{}, Precision::kBFloat16);
    expect_bitwise_equal(c, fast_gemm(g, d, Exec{}, Precision::kBFloat16), "C");
  }
}

// bfloat16 operands are for bfloat16 products only.
TEST(GemmBFloat16, BFloat16OperandsOfFloat32ProductsAreRefused) {
  const std::vector<BFloat16> a(6, to_bfloat16(1.0f));
  const std::vector<float> b(6, 1.0f);
  std::vector<float> c(4);
  EXPECT_THROW(kernels::gemm(false, false, 2, 2, 3, 1.0f, a.data(), 3, b.data(), 2, 0.0f, c.data(),
                             2, Exec{}, Precision::kFloat32),
               Error);
}

// A bfloat16 C (a bfloat16 plan's convolution outputs and pointwise dx) holds the float32 C's
// sums, plus beta times its old value, rounded once, bit for bit, in both precisions, on one and
// two threads: full and edge tiles (m and n not multiples of the 6 x 32 tile), one k-block at its
// largest and a partial one (a transposed B packed in whole 16 x 16 blocks and a remainder); the
// gaps between C's rows are not written.
TEST(GemmBFloat16, BFloat16CHoldsTheFloat32SumsRounded) {
  testing::PoolExec two(2);
  for (Precision precision : {Precision::kFloat32, Precision::kBFloat16}) {
    const int64_t max_k = kernels::gemm_max_rounded_k(precision);
    for (const GemmCase& g : {GemmCase{false, false, 197, 70, 64, 1.0f, 0.0f, 0, 0, 3},
                              GemmCase{false, true, 45, 259, max_k, 0.5f, 0.0f, 1, 2, 0},
                              GemmCase{false, true, 13, 70, 45, 1.0f, 0.0f, 0, 0, 2},
                              GemmCase{true, false, 13, 1100, 7, 1.0f, 0.0f, 0, 0, 0}}) {
      for (float beta : {0.0f, 1.0f}) {
        for (const Exec& ex : {Exec{}, two.exec()}) {
          SCOPED_TRACE(describe(g) + " " + name(precision) + " beta " + std::to_string(beta));
          const GemmData d(g);
          const std::vector<float> sums = fast_gemm(g, d, ex, precision);
          std::vector<BFloat16> c(d.c.size(), to_bfloat16(kSentinel));
          const std::vector<float> old = testing::random_floats(g.m * g.ldc(), 17);
          for (int64_t r = 0; r < g.m; ++r) {
            for (int64_t j = 0; j < g.n; ++j)
              c[r * g.ldc() + j] = to_bfloat16(old[r * g.ldc() + j]);
          }
          const std::vector<BFloat16> before = c;
          kernels::gemm(g.trans_a, g.trans_b, g.m, g.n, g.k, g.alpha, d.a.data(), g.lda(),
                        d.b.data(), g.ldb(), beta, c.data(), g.ldc(), ex, precision);
          for (int64_t r = 0; r < g.m; ++r) {
            for (int64_t j = 0; j < g.ldc(); ++j) {
              const int64_t i = r * g.ldc() + j;
              const BFloat16 want =
                  j < g.n ? to_bfloat16(std::fma(beta, to_float(before[i]), sums[i])) : before[i];
              ASSERT_EQ(c[i].bits, want.bits) << "row " << r << " column " << j;
            }
          }
        }
      }
    }
  }
}

// A bfloat16 C takes finished sums only: one block of k.
TEST(GemmBFloat16, BFloat16COfDeeperProductsIsRefused) {
  const int64_t deep = kernels::gemm_max_rounded_k(Precision::kBFloat16) + 1;
  const std::vector<float> a(2 * deep, 1.0f), b(deep * 2, 1.0f);
  std::vector<BFloat16> c(4);
  EXPECT_THROW(kernels::gemm(false, false, 2, 2, deep, 1.0f, a.data(), deep, b.data(), 2, 0.0f,
                             c.data(), 2, Exec{}, Precision::kBFloat16),
               Error);
}

// Rounding: to nearest, ties to even; denormals to a zero of their sign, NaN stays a quiet NaN,
// infinities and the overflow past the largest bfloat16 as PyTorch and vcvtneps2bf16 give them.
TEST(BFloat16, RoundsToNearestEvenAsTheHardwareDoes) {
  auto bits_of = [](uint32_t float_bits) {
    float x;
    std::memcpy(&x, &float_bits, sizeof x);
    return to_bfloat16(x).bits;
  };
  EXPECT_EQ(bits_of(0x3f800000), 0x3f80);  // 1.0
  EXPECT_EQ(bits_of(0x3f808000), 0x3f80);  // halfway, tie to the even 0x3f80
  EXPECT_EQ(bits_of(0x3f818000), 0x3f82);  // halfway, tie to the even 0x3f82
  EXPECT_EQ(bits_of(0x3f808001), 0x3f81);  // past halfway rounds up
  EXPECT_EQ(bits_of(0x3f807fff), 0x3f80);  // below halfway rounds down
  EXPECT_EQ(bits_of(0xbf80c000), 0xbf81);  // negative, past halfway
  EXPECT_EQ(bits_of(0x00400000), 0x0000);  // a denormal flushes to +0
  EXPECT_EQ(bits_of(0x80000001), 0x8000);  // ... and to -0
  EXPECT_EQ(bits_of(0x7f800000), 0x7f80);  // +inf
  EXPECT_EQ(bits_of(0xff800000), 0xff80);  // -inf
  EXPECT_EQ(bits_of(0x7f7fffff), 0x7f80);  // the largest float rounds to inf
  EXPECT_EQ(bits_of(0x7f800001), 0x7fc0);  // a signalling NaN becomes quiet
  EXPECT_EQ(bits_of(0xffc12345), 0xffc1);  // a quiet NaN keeps its sign and top payload
  for (float x : testing::random_floats(1000, 7, -100.0f, 100.0f)) {
    const float r = round_to_bfloat16(x);
    EXPECT_LE(std::fabs(r - x), std::ldexp(std::fabs(x), -8)) << x;
    EXPECT_EQ(round_to_bfloat16(r), r) << x;  // idempotent
  }
}

}  // namespace
}  // namespace xtrain
