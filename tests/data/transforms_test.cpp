// The composed transforms: normalization constants, flips, where each crop is taken from, and the
// order of random draws (the box, then the flip), checked against their pieces.
#include "data/transforms.h"

#include <gtest/gtest.h>

#include <vector>

#include "data/crop_boxes.h"
#include "data/resize_bilinear.h"
#include "lib/base/check.h"

namespace xtrain {
namespace {

constexpr float kMean[3] = {0.485f, 0.456f, 0.406f};
constexpr float kStd[3] = {0.229f, 0.224f, 0.225f};

float normalized(int value, int channel) {
  return (value / 255.0f - kMean[channel]) / kStd[channel];
}

// An RGB image whose pixel (y, x) is (x, y, 7) modulo 256: crop positions are readable from it.
cv::Mat coordinate_image(int height, int width) {
  cv::Mat image(height, width, CV_8UC3);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) image.at<cv::Vec3b>(y, x) = cv::Vec3b(x, y, 7);
  }
  return image;
}

// The output pixel (y, x) of an [size, size, 3] float image.
std::vector<float> out_pixel(const std::vector<float>& out, int size, int y, int x) {
  const float* p = &out[(static_cast<size_t>(y) * size + x) * 3];
  return {p[0], p[1], p[2]};
}

std::vector<float> expected_pixel(int r, int g, int b) {
  return {normalized(r, 0), normalized(g, 1), normalized(b, 2)};
}

TEST(Transforms, NormalizeUsesImageNetMeanAndStdInRgbOrder) {
  cv::Mat rgb(1, 2, CV_8UC3);
  rgb.at<cv::Vec3b>(0, 0) = {255, 0, 128};
  rgb.at<cv::Vec3b>(0, 1) = {0, 255, 1};
  std::vector<float> out(6);
  normalize_image(rgb, /*flip=*/false, out.data());
  EXPECT_FLOAT_EQ(out[0], (1.0f - 0.485f) / 0.229f);
  EXPECT_FLOAT_EQ(out[1], (0.0f - 0.456f) / 0.224f);
  EXPECT_FLOAT_EQ(out[2], (128.0f / 255.0f - 0.406f) / 0.225f);
  EXPECT_FLOAT_EQ(out[3], -0.485f / 0.229f);

  std::vector<float> flipped(6);
  normalize_image(rgb, /*flip=*/true, flipped.data());
  EXPECT_EQ(std::vector<float>(flipped.begin(), flipped.begin() + 3),
            std::vector<float>(out.begin() + 3, out.end()));
  EXPECT_EQ(std::vector<float>(flipped.begin() + 3, flipped.end()),
            std::vector<float>(out.begin(), out.begin() + 3));
}

TEST(Transforms, ImageNetTestResizesTheShorterSideThenCropsTheCenter) {
  // 256x300 at image_size 224: the shorter side is already 256, so only the center crop acts,
  // from row 16 and column round(76 / 2) = 38.
  const int size = 224;
  std::vector<float> out(size * size * 3);
  Rng rng({0});
  make_transform("imagenet", /*train=*/false, size)(coordinate_image(256, 300), rng, out.data());
  EXPECT_EQ(out_pixel(out, size, 0, 0), expected_pixel(38, 16, 7));
  EXPECT_EQ(out_pixel(out, size, 223, 223), expected_pixel((38 + 223) % 256, 16 + 223, 7));

  // A constant 600x400 image stays constant through the resize.
  cv::Mat gray(600, 400, CV_8UC3, cv::Scalar::all(90));
  make_transform("imagenet", false, size)(gray, rng, out.data());
  EXPECT_EQ(out_pixel(out, size, 100, 50), expected_pixel(90, 90, 90));
}

TEST(Transforms, ImageNetTrainDrawsTheCropThenTheFlip) {
  const int size = 8;
  const cv::Mat image = coordinate_image(60, 90);
  int flips = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    Rng rng({seed}), replay({seed});
    std::vector<float> out(size * size * 3), expected(size * size * 3);
    make_transform("imagenet", /*train=*/true, size)(image, rng, out.data());

    const Box box = random_resized_crop_box(image.rows, image.cols, replay);
    const cv::Mat crop = resize_bilinear(image(cv::Rect(box.left, box.top, box.width, box.height)),
                                         size, size, {0, 0, size, size});
    const bool flip = replay.uniform() < 0.5;
    normalize_image(crop, flip, expected.data());
    ASSERT_EQ(out, expected) << "seed " << seed;
    flips += flip;
  }
  EXPECT_GT(flips, 5);  // both branches were taken
  EXPECT_LT(flips, 35);
}

TEST(Transforms, CifarTrainPadsWithZerosThenCropsAndFlips) {
  const int size = 4;
  const cv::Mat image = coordinate_image(size, size);
  bool saw_padding = false;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    Rng rng({seed}), replay({seed});
    std::vector<float> out(size * size * 3);
    make_transform("cifar", /*train=*/true, size)(image, rng, out.data());
    const Box box = random_crop_box(size + 8, size + 8, size, replay);
    const bool flip = replay.uniform() < 0.5;
    for (int y = 0; y < size; ++y) {
      for (int x = 0; x < size; ++x) {
        // Position in the padded image, then in the original (outside it: black padding).
        const int py = box.top + y, px = box.left + (flip ? size - 1 - x : x);
        const int iy = py - 4, ix = px - 4;
        const bool inside = iy >= 0 && iy < size && ix >= 0 && ix < size;
        saw_padding |= !inside;
        const std::vector<float> want =
            inside ? expected_pixel(ix, iy, 7) : expected_pixel(0, 0, 0);
        ASSERT_EQ(out_pixel(out, size, y, x), want) << "seed " << seed << " at " << y << "," << x;
      }
    }
  }
  EXPECT_TRUE(saw_padding);
}

TEST(Transforms, CifarTestOnlyNormalizesImagesOfTheRightSize) {
  const int size = 5;
  std::vector<float> out(size * size * 3);
  Rng rng({0});
  make_transform("cifar", /*train=*/false, size)(coordinate_image(size, size), rng, out.data());
  EXPECT_EQ(out_pixel(out, size, 0, 0), expected_pixel(0, 0, 7));
  EXPECT_EQ(out_pixel(out, size, 4, 3), expected_pixel(3, 4, 7));
}

TEST(Transforms, UnknownAugmentIsAnError) {
  EXPECT_THROW(make_transform("autoaugment", true, 32), Error);
}

}  // namespace
}  // namespace xtrain
