#include <gtest/gtest.h>

#include "lib/base/check.h"
#include "lib/tensor/tensor.h"

namespace xtrain {
namespace {

TEST(TensorView, ReadsItsElementsThroughTheAccessorOfTheirType) {
  float floats[4] = {};
  BFloat16 halves[4] = {};
  const TensorView f32{floats, Shape{2, 2}};
  const TensorView bf16{halves, Shape{2, 2}, ElementType::kBFloat16};
  EXPECT_EQ(f32.f32(), floats);
  EXPECT_EQ(bf16.bf16(), halves);
  EXPECT_EQ(bf16.elements().type, ElementType::kBFloat16);
  EXPECT_EQ(bf16.elements().data, halves);
}

// Reading bfloat16 as float32 (or the other way round) would give wrong numbers, not a crash.
TEST(TensorView, TheOtherTypesAccessorThrows) {
  float floats[4] = {};
  BFloat16 halves[4] = {};
  const TensorView f32{floats, Shape{2, 2}};
  const TensorView bf16{halves, Shape{2, 2}, ElementType::kBFloat16};
  EXPECT_THROW(bf16.f32(), Error);
  EXPECT_THROW(f32.bf16(), Error);
}

}  // namespace
}  // namespace xtrain
