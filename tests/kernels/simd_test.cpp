// simd::transpose, which the GEMM's packers use to write whole vectors of a panel: a block of
// distinct values comes back transposed, in whichever vector width the build targets.
#include "lib/kernels/simd.h"

#include <gtest/gtest.h>

namespace xtrain {
namespace {

using kernels::simd::kLanes;
using kernels::simd::Vec;

TEST(Simd, TransposeSwapsRowsAndLanes) {
  float in[kLanes][kLanes], out[kLanes][kLanes];
  for (int r = 0; r < kLanes; ++r) {
    for (int c = 0; c < kLanes; ++c) in[r][c] = static_cast<float>(r * kLanes + c);
  }
  Vec rows[kLanes];
  for (int r = 0; r < kLanes; ++r) rows[r] = kernels::simd::load(in[r]);
  kernels::simd::transpose(rows);
  for (int r = 0; r < kLanes; ++r) kernels::simd::store(out[r], rows[r]);
  for (int r = 0; r < kLanes; ++r) {
    for (int c = 0; c < kLanes; ++c) EXPECT_EQ(out[r][c], in[c][r]) << "row " << r << " lane " << c;
  }
}

}  // namespace
}  // namespace xtrain
