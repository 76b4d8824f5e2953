// Helpers shared by the kernel tests: closeness to a reference judged against the magnitude of
// the whole result, bitwise equality, and buffers pre-filled with values a kernel must overwrite.
// Not here: random data, the thread pool (tests/test_util.h).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "lib/tensor/bfloat16.h"
#include "tests/test_util.h"

namespace xtrain::testing {

// Largest |v[i]| (0 for an empty vector).
inline float max_abs(const std::vector<float>& v) {
  float m = 0.0f;
  for (float x : v) m = std::max(m, std::fabs(x));
  return m;
}

// Expects |actual - expected| <= rtol * (|expected| + max |expected|) element-wise: a float
// kernel summing in a different order than the double reference is off by a few ulps of the
// largest terms, so elements that cancel to near zero are judged against the overall scale.
inline void expect_close_to_reference(const std::vector<float>& actual,
                                      const std::vector<float>& expected, float rtol,
                                      const char* what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (float x : actual) {
    if (!std::isfinite(x)) {
      ADD_FAILURE() << what << ": non-finite value " << x;
      return;
    }
  }
  expect_close(actual, expected, rtol, rtol * max_abs(expected), what);
}

// Expects the two buffers to hold the same bits.
inline void expect_bitwise_equal(const std::vector<float>& a, const std::vector<float>& b,
                                 const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  // An empty vector's data() may be null, which memcmp may not be given even for 0 bytes.
  if (a.empty() || std::memcmp(a.data(), b.data(), sizeof(float) * a.size()) == 0) return;
  size_t first = 0;
  while (first < a.size() && std::memcmp(&a[first], &b[first], sizeof(float)) == 0) ++first;
  ADD_FAILURE() << what << ": buffers differ, first at [" << first << "]: " << a[first] << " vs "
                << b[first];
}

// v's values stored as bfloat16, each rounded once.
inline std::vector<BFloat16> to_bfloat16s(const std::vector<float>& v) {
  std::vector<BFloat16> out;
  for (float x : v) out.push_back(to_bfloat16(x));
  return out;
}

// v's values as floats, exactly.
inline std::vector<float> to_floats(const std::vector<BFloat16>& v) {
  std::vector<float> out;
  for (BFloat16 x : v) out.push_back(to_float(x));
  return out;
}

// v rounded to the values bfloat16 holds, kept as floats.
inline std::vector<float> rounded_to_bfloat16(std::vector<float> v) {
  for (float& x : v) x = round_to_bfloat16(x);
  return v;
}

// n quiet NaNs: an output buffer whose old contents a kernel documented to overwrite must ignore.
// Element counts for element-wise kernels: odd and small, and ResNet-50's layer1 activation at
// batch 1 (56*56*256, big enough to split over two threads) plus one for an uneven tail.
inline constexpr int64_t kElementwiseSizes[] = {1, 7, 3 * 5 * 7 * 13, 56 * 56 * 256 + 1};

inline std::vector<float> nans(size_t n) {
  return std::vector<float>(n, std::numeric_limits<float>::quiet_NaN());
}

}  // namespace xtrain::testing
