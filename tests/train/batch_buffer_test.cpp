// The trainer's batch buffer: room for the largest batch, its images in the plans' image type.
#include "lib/train/batch_buffer.h"

#include <gtest/gtest.h>

#include "lib/graph/plan_phases.h"
#include "models/registry.h"

namespace xtrain {
namespace {

TEST(BatchBufferSize, HoldsTheImagesInThePlansTypeAndTheLabels) {
  const auto graph = build_model("resnet20", 10);
  const BatchBufferSize f32 = batch_buffer_size(*graph, Precision::kFloat32, 5, 3);
  EXPECT_EQ(f32.image_type, ElementType::kFloat32);
  EXPECT_EQ(f32.image_floats, 3u * 5 * 5 * 3);
  EXPECT_EQ(f32.labels, 3u);
  EXPECT_EQ(f32.image_bytes(), (3 * 5 * 5 * 3) * sizeof(float));
  // A bfloat16 plan of this model reads a bfloat16 image: pairs fill a float, an odd one a whole.
  const BatchBufferSize bf16 = batch_buffer_size(*graph, Precision::kBFloat16, 5, 3);
  EXPECT_EQ(bf16.image_type, image_type(*graph, Precision::kBFloat16));
  EXPECT_EQ(bf16.image_type, ElementType::kBFloat16);
  EXPECT_EQ(bf16.image_floats, (3u * 5 * 5 * 3 + 1) / 2);
}

}  // namespace
}  // namespace xtrain
