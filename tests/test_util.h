// Helpers shared by the unit tests: seeded random data, closeness checks, a thread pool.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "lib/base/check.h"
#include "lib/parallel/exec.h"

namespace xtrain::testing {

// n floats uniform in [lo, hi), the same for the same seed on every machine we build on.
inline std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -1.0f,
                                        float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = lo + (hi - lo) * static_cast<float>(rng() >> 8) * (1.0f / 16777216.0f);
  return v;
}

// Expects |a - b| <= atol + rtol * |b| element-wise; reports the first few failures by index.
inline void expect_close(const float* a, const float* b, size_t n, float rtol, float atol,
                         const char* what = "") {
  int failures = 0;
  for (size_t i = 0; i < n && failures < 5; ++i) {
    const float tol = atol + rtol * std::fabs(b[i]);
    if (!(std::fabs(a[i] - b[i]) <= tol)) {
      ADD_FAILURE() << what << " [" << i << "]: " << a[i] << " vs " << b[i] << " (tol " << tol
                    << ")";
      ++failures;
    }
  }
}

inline void expect_close(const std::vector<float>& a, const std::vector<float>& b, float rtol,
                         float atol, const char* what = "") {
  ASSERT_EQ(a.size(), b.size()) << what;
  expect_close(a.data(), b.data(), a.size(), rtol, atol, what);
}

// The one-line message of the xtrain::Error that f() throws, or "" if it throws none.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// An Exec over a pool of `threads` threads, for comparing 1 vs N threads.
class PoolExec {
 public:
  explicit PoolExec(int threads) : pool_(threads) {}
  Exec exec() { return Exec{&pool_}; }

 private:
  ThreadPool pool_;
};

}  // namespace xtrain::testing
