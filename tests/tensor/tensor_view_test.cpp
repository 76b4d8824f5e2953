#include <gtest/gtest.h>

#include "lib/base/check.h"
#include "lib/tensor/tensor.h"

namespace xtrain {
namespace {

// A float32 view and a bfloat16 view of four elements each.
struct Views {
  float floats[4] = {};
  BFloat16 halves[4] = {};
  TensorView f32{floats, Shape{2, 2}};
  TensorView bf16{halves, Shape{2, 2}, ElementType::kBFloat16};
};

TEST(TensorView, ReadsItsElementsThroughTheAccessorOfTheirType) {
  const Views v;
  EXPECT_EQ(v.f32.f32(), v.floats);
  EXPECT_EQ(v.bf16.bf16(), v.halves);
  EXPECT_EQ(v.bf16.elements().type, ElementType::kBFloat16);
  EXPECT_EQ(v.bf16.elements().data, v.halves);
}

// Reading bfloat16 as float32 (or the other way round) would give wrong numbers, not a crash.
TEST(TensorView, TheOtherTypesAccessorThrows) {
  const Views v;
  EXPECT_THROW(v.bf16.f32(), Error);
  EXPECT_THROW(v.f32.bf16(), Error);
}

}  // namespace
}  // namespace xtrain
