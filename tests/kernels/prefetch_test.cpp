// Where BatchNorm's passes ask for their rows ahead: everywhere but the CPU measured to lose by
// it (Zen 4: AMD family 0x19 with AVX-512).
#include "lib/kernels/prefetch.h"

#include <gtest/gtest.h>

namespace xtrain::kernels {
namespace {

TEST(Prefetch, BatchNormAsksForRowsAheadExceptOnZen4) {
  EXPECT_FALSE(batchnorm_prefetch_pays(/*amd=*/true, 0x19, /*avx512=*/true));  // Zen 4
  EXPECT_TRUE(batchnorm_prefetch_pays(true, 0x1a, true));                      // Zen 5
  EXPECT_TRUE(batchnorm_prefetch_pays(true, 0x19, false));                     // Zen 3: unmeasured
  EXPECT_TRUE(batchnorm_prefetch_pays(true, 0x17, false));                     // Zen 2: unmeasured
  EXPECT_TRUE(batchnorm_prefetch_pays(false, 6, true));                        // Intel: unmeasured
}

}  // namespace
}  // namespace xtrain::kernels
