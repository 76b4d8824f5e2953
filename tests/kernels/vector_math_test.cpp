// vector_exp and vector_erf (vector_math.h): within two ulps of the exact values (std::exp and
// std::erf in double, rounded to float) over every 2^-16th of their useful ranges, and torch's
// values at the edges: 0 for exp far below, +-1 for erf past 4, NaN for NaN.
#include "lib/kernels/vector_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace xtrain {
namespace {

// |got - exact| in units of the last place of exact rounded to float.
double ulps(float got, double exact) {
  const float rounded = static_cast<float>(exact);
  const float magnitude = std::fabs(rounded);
  const double ulp = std::nextafter(magnitude, std::numeric_limits<float>::infinity()) - magnitude;
  return std::fabs(static_cast<double>(got) - exact) / ulp;
}

constexpr double kStep = 1.0 / 65536.0;
constexpr double kMaxUlps = 2.0;

TEST(VectorMath, ErfIsWithinTwoUlpsOfTheExactValue) {
  double worst = 0.0;
  float worst_at = 0.0f;
  // [-6, 6): both branches, the switch between them at 0.921875, and the tail where erf is +-1.
  for (double v = -6.0; v < 6.0; v += kStep) {
    const float x = static_cast<float>(v);
    const double e = ulps(kernels::vector_erf(x), std::erf(static_cast<double>(x)));
    if (e > worst) worst = e, worst_at = x;
  }
  // Tiny arguments, where erf(x) is 2x / sqrt(pi) and the relative error is what counts.
  for (float x = 1e-30f; x < 1e-2f; x *= 1.01f) {
    for (const float signed_x : {x, -x}) {
      const double e = ulps(kernels::vector_erf(signed_x), std::erf(static_cast<double>(signed_x)));
      if (e > worst) worst = e, worst_at = signed_x;
    }
  }
  EXPECT_LE(worst, kMaxUlps) << "at " << worst_at;
}

TEST(VectorMath, ExpIsWithinTwoUlpsOfTheExactValue) {
  double worst = 0.0;
  float worst_at = 0.0f;
  for (double v = -87.0; v < 0.0; v += kStep) {
    const float x = static_cast<float>(v);
    const double e = ulps(kernels::vector_exp(x), std::exp(static_cast<double>(x)));
    if (e > worst) worst = e, worst_at = x;
  }
  EXPECT_LE(worst, kMaxUlps) << "at " << worst_at;
}

TEST(VectorMath, EdgesAreTorchs) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(kernels::vector_exp(0.0f), 1.0f);
  EXPECT_EQ(kernels::vector_exp(-100.0f), 0.0f);
  EXPECT_EQ(kernels::vector_exp(-inf), 0.0f);
  EXPECT_TRUE(std::isnan(kernels::vector_exp(nan)));
  EXPECT_EQ(kernels::vector_erf(0.0f), 0.0f);
  EXPECT_TRUE(std::signbit(kernels::vector_erf(-0.0f)));
  EXPECT_EQ(kernels::vector_erf(4.0f), 1.0f);
  EXPECT_EQ(kernels::vector_erf(-30.0f), -1.0f);
  EXPECT_EQ(kernels::vector_erf(inf), 1.0f);
  EXPECT_EQ(kernels::vector_erf(-inf), -1.0f);
  EXPECT_TRUE(std::isnan(kernels::vector_erf(nan)));
}

}  // namespace
}  // namespace xtrain
