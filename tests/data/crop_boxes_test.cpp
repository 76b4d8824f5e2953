// The box geometry of torchvision's transforms: hand-checked cases (rounding, fallbacks) and the
// invariants of the random boxes over many draws.
#include "data/crop_boxes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace xtrain {
namespace {

void expect_box(const Box& box, int top, int left, int height, int width) {
  EXPECT_EQ(box.top, top);
  EXPECT_EQ(box.left, left);
  EXPECT_EQ(box.height, height);
  EXPECT_EQ(box.width, width);
}

TEST(CropBoxes, CenterCropRoundsHalvesToEven) {
  expect_box(center_crop_box(256, 256, 224, 224), 16, 16, 224, 224);
  expect_box(center_crop_box(5, 7, 4, 4), 0, 2, 4, 4);  // round(0.5) = 0, round(1.5) = 2
  expect_box(center_crop_box(7, 9, 4, 4), 2, 2, 4, 4);  // round(1.5) = 2, round(2.5) = 2
}

// round(size / 0.875): torchvision's 256 for 224 and 342 for Inception's 299 (not 299 * 256 / 224
// = 341 in integers), rounding down and up around the halves of sevenths.
TEST(CropBoxes, TestResizeSideIsTheSizeOverCropPercentRounded) {
  EXPECT_EQ(test_resize_side(224), 256);
  EXPECT_EQ(test_resize_side(299), 342);
  EXPECT_EQ(test_resize_side(28), 32);
  EXPECT_EQ(test_resize_side(1), 1);  // 1.14
  EXPECT_EQ(test_resize_side(3), 3);  // 3.43
  EXPECT_EQ(test_resize_side(4), 5);  // 4.57
}

TEST(CropBoxes, ResizeShorterSideKeepsTheAspectRatioRoundedDown) {
  const Size2d landscape = resized_shorter_side(375, 500, 256);  // 256 * 500 / 375 = 341.33
  EXPECT_EQ(landscape.height, 256);
  EXPECT_EQ(landscape.width, 341);
  const Size2d portrait = resized_shorter_side(500, 375, 256);
  EXPECT_EQ(portrait.height, 341);
  EXPECT_EQ(portrait.width, 256);
  const Size2d square = resized_shorter_side(28, 28, 32);
  EXPECT_EQ(square.height, 32);
  EXPECT_EQ(square.width, 32);
}

TEST(CropBoxes, RandomResizedCropFallsBackToTheCenterWhenNothingFits) {
  // 2 rows: even 8% of the area needs a box at least 3 rows tall at ratio <= 4/3, so all ten
  // attempts fail; the fallback narrows the width to round(2 * 4/3) = 3, centered.
  Rng rng({1});
  expect_box(random_resized_crop_box(2, 100, rng), 0, 48, 2, 3);
  // Tall: the height becomes round(2 / (3/4)) = 3.
  expect_box(random_resized_crop_box(100, 2, rng), 48, 0, 3, 2);
}

TEST(CropBoxes, RandomResizedCropBoxesFitAndRespectScaleAndRatio) {
  // Square, so that boxes too tall and too wide are rejected alike and log(ratio) stays centered.
  constexpr int kHeight = 300, kWidth = 300;
  std::set<int> tops, lefts;
  double log_ratio_sum = 0.0;
  constexpr int kDraws = 4000;
  for (int i = 0; i < kDraws; ++i) {
    Rng rng({7, static_cast<uint64_t>(i)});
    const Box b = random_resized_crop_box(kHeight, kWidth, rng);
    ASSERT_GE(b.top, 0);
    ASSERT_GE(b.left, 0);
    ASSERT_LE(b.top + b.height, kHeight);
    ASSERT_LE(b.left + b.width, kWidth);
    const double area = static_cast<double>(b.height) * b.width / (kHeight * kWidth);
    const double ratio = static_cast<double>(b.width) / b.height;
    EXPECT_GT(area, 0.07);  // 0.08 up to the rounding of the sides
    EXPECT_LE(area, 1.0);
    EXPECT_GT(ratio, 0.74);  // 3/4 .. 4/3 up to rounding
    EXPECT_LT(ratio, 1.35);
    log_ratio_sum += std::log(ratio);
    tops.insert(b.top);
    lefts.insert(b.left);
  }
  EXPECT_NEAR(log_ratio_sum / kDraws, 0.0, 0.02);  // log-uniform around ratio 1
  EXPECT_GT(tops.size(), 100u);                    // positions spread over the image
  EXPECT_GT(lefts.size(), 100u);
}

TEST(CropBoxes, TheSameGeneratorGivesTheSameBox) {
  Rng a({42, 3, 17}), b({42, 3, 17}), c({42, 3, 18});
  const Box box_a = random_resized_crop_box(480, 640, a);
  const Box box_b = random_resized_crop_box(480, 640, b);
  const Box box_c = random_resized_crop_box(480, 640, c);
  expect_box(box_b, box_a.top, box_a.left, box_a.height, box_a.width);
  EXPECT_FALSE(box_c.top == box_a.top && box_c.left == box_a.left && box_c.height == box_a.height &&
               box_c.width == box_a.width);
}

TEST(CropBoxes, RandomCropReachesEveryOffset) {
  std::set<std::pair<int, int>> offsets;
  for (int i = 0; i < 2000; ++i) {
    Rng rng({5, static_cast<uint64_t>(i)});
    const Box b = random_crop_box(36, 36, 28, rng);  // 28px image padded by 4
    ASSERT_EQ(b.height, 28);
    ASSERT_EQ(b.width, 28);
    offsets.insert({b.top, b.left});
  }
  EXPECT_EQ(offsets.size(), 81u);  // 9 x 9 positions
  EXPECT_EQ(*offsets.begin(), std::make_pair(0, 0));
  EXPECT_EQ(*offsets.rbegin(), std::make_pair(8, 8));
}

}  // namespace
}  // namespace xtrain
