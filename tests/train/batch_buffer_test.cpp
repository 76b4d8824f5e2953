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

// Training and test images may differ in size: one buffer holds either kind's batch.
TEST(BatchBufferSize, RoomForBothHoldsTheLargerImagesAndTheMoreLabels) {
  const auto graph = build_model("resnet20", 10);
  const BatchBufferSize train = batch_buffer_size(*graph, Precision::kFloat32, 8, 6);
  const BatchBufferSize test = batch_buffer_size(*graph, Precision::kFloat32, 12, 4);
  const BatchBufferSize both = room_for_both(train, test);
  EXPECT_EQ(both.image_floats, 4u * 12 * 12 * 3);  // more than 6 x 8 x 8 x 3
  EXPECT_EQ(both.labels, 6u);
  EXPECT_EQ(both.image_type, ElementType::kFloat32);
  EXPECT_EQ(room_for_both(test, train).image_floats, both.image_floats);
  // Of one size, as before test images could differ: the larger batch's.
  EXPECT_EQ(room_for_both(train, batch_buffer_size(*graph, Precision::kFloat32, 8, 9)).image_floats,
            9u * 8 * 8 * 3);
}

}  // namespace
}  // namespace xtrain
