// exp and erf of a float in plain arithmetic (polynomials, a rounding by adding 1.5 * 2^23, a
// power of two built in the exponent bits), with no branch and no call: GCC vectorizes a loop of
// them, where std::exp and std::erf stay one library call per element. Both land within about an
// ulp of the exact values (tests/kernels/vector_math_test.cpp checks a dense range against
// std::erf and std::exp in double), a different rounding from the C library's, so they serve
// kernels whose reference is torch's own vectorized approximation (GELU), not the C library.
// Not here: the activations that use them (activations.h).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace xtrain::kernels {

// e^x: x = n ln 2 + r with |r| <= ln 2 / 2, e^r by its Taylor series to r^7 (the next term is
// below float32's rounding there), times 2^n. 0 below -87 (where 2^n would leave the normal
// floats), NaN for NaN; above 88 it gives e^88, not infinity (the callers pass x <= 0).
inline float vector_exp(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693145751953125f;  // ln 2's leading bits: n * kLn2Hi is exact
  constexpr float kLn2Lo = 1.42860682030941723212e-6f;
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float c = x < -87.0f ? -87.0f : (x > 88.0f ? 88.0f : x);
  const float n = (c * kLog2e + kRound) - kRound;
  const float r = (c - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float two_to_n;
  std::memcpy(&two_to_n, &bits, sizeof two_to_n);
  return x < -87.0f ? 0.0f : p * two_to_n;
}

// erf(x): x + x P(x^2) below |x| = 0.921875, sign(x) (1 - e^Q(|x|)) above, Q fitted to
// log(erfc) up to 4, past which erf is 1 in float32. Both branches are computed and one chosen,
// which is what lets the loop vectorize. The coefficients are scripts/fit_erf.py's.
inline float vector_erf(float x) {
  const float s = x * x;
  float p = 8.370098e-05f;
  p = p * s + -0.0008142704f;
  p = p * s + 0.0052010324f;
  p = p * s + -0.026859399f;
  p = p * s + 0.11283696f;
  p = p * s + -0.37612635f;
  p = p * s + 0.12837917f;  // 2 / sqrt(pi) - 1: x is added apart, which keeps an ulp
  const float near_zero = x + x * p;
  const float t = std::fabs(x);
  const float u = t > 4.0f ? 4.0f : t;  // NaN stays NaN
  float q = -2.1118565e-05f;
  q = q * u + 0.00043473445f;
  q = q * u + -0.00417238f;
  q = q * u + 0.025122894f;
  q = q * u + -0.10828545f;
  q = q * u + -0.633342f;
  q = q * u + -1.1295173f;
  q = q * u + 0.00017518541f;
  const float tail = std::copysign(1.0f - vector_exp(q), x);
  return t < 0.921875f ? near_zero : tail;
}

}  // namespace xtrain::kernels
