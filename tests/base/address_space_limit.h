// For death tests of running out of address space: in the child, lower RLIMIT_AS to what the
// process has mapped plus `headroom` bytes, and start threads there. Sanitizers map far more than
// any such limit leaves, so callers skip under them (XTRAIN_SKIP_UNDER_SANITIZERS).
#pragma once

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <atomic>
#include <cstdlib>
#include <iostream>

#include "lib/base/address_space.h"
#include "lib/base/check.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define XTRAIN_SKIP_UNDER_SANITIZERS() \
  GTEST_SKIP() << "sanitizers map more address space than the limit leaves"
#else
#define XTRAIN_SKIP_UNDER_SANITIZERS() (void)0
#endif

namespace xtrain::testing {

inline void limit_address_space(size_t headroom) {
  const rlimit limit{address_space_in_use().value_or(0) + headroom, RLIM_INFINITY};
  setrlimit(RLIMIT_AS, &limit);
}

// For EXPECT_EXIT: with room for a thread stack or two, runs start(bodies), which starts threads
// whose bodies count themselves in `bodies`; prints the error it threw, and exits 0 when no body
// ran.
template <typename Start>
void start_without_room(Start&& start) {
  std::atomic<int> bodies{0};
  limit_address_space(size_t{16} << 20);
  try {
    start(bodies);
    std::cerr << "every thread started";
  } catch (const Error& e) {
    std::cerr << e.what();
  }
  std::exit(bodies == 0 ? 0 : 1);
}

}  // namespace xtrain::testing
