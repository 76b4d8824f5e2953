// Where BatchNorm's passes ask for their rows ahead: everywhere but on the CPUs measured to lose
// by it (AMD family 0x19 with AVX-512).
#include "lib/kernels/prefetch.h"

#include <gtest/gtest.h>

namespace xtrain::kernels {
namespace {

TEST(Prefetch, BatchNormAsksForRowsAheadExceptOnAmdFamily19WithAvx512) {
  EXPECT_FALSE(batchnorm_prefetch_pays(/*amd=*/true, 0x19, /*avx512=*/true));  // loses
  EXPECT_TRUE(batchnorm_prefetch_pays(true, 0x1a, true));                      // gains
  EXPECT_TRUE(batchnorm_prefetch_pays(true, 0x19, false));  // without AVX-512: unmeasured
  EXPECT_TRUE(batchnorm_prefetch_pays(true, 0x17, false));  // unmeasured
  EXPECT_TRUE(batchnorm_prefetch_pays(false, 6, true));     // Intel: unmeasured
}

}  // namespace
}  // namespace xtrain::kernels
