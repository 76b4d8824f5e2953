// The composed transforms: normalization constants, flips, where each crop is taken from, and the
// order of random draws (the box, then the flip), checked against their pieces.
#include "data/transforms.h"

#include <gtest/gtest.h>

#include <vector>

#include "data/crop_boxes.h"
#include "data/resize_image.h"
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

// The pixels normalized into floats.
std::vector<float> normalized_floats(const std::vector<uint8_t>& pixels) {
  std::vector<float> out(pixels.size());
  normalize_pixels(pixels.data(), static_cast<int64_t>(pixels.size()), out.data());
  return out;
}

// `transform` of `image` at size x size, normalized into floats.
std::vector<float> transformed(const Transform& transform, const cv::Mat& image, Rng& rng,
                               int size) {
  std::vector<uint8_t> pixels(size_t(size) * size * 3);
  transform(image, rng, pixels.data());
  return normalized_floats(pixels);
}

TEST(Transforms, NormalizeUsesImageNetMeanAndStdInRgbOrder) {
  // 17 pixels: a vector's worth of them and one more.
  std::vector<uint8_t> pixels(17 * 3);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 37 + 11);
  pixels[0] = 255, pixels[1] = 0, pixels[2] = 128;
  const std::vector<float> out = normalized_floats(pixels);
  EXPECT_FLOAT_EQ(out[0], (1.0f - 0.485f) / 0.229f);
  EXPECT_FLOAT_EQ(out[1], (0.0f - 0.456f) / 0.224f);
  EXPECT_FLOAT_EQ(out[2], (128.0f / 255.0f - 0.406f) / 0.225f);
  for (size_t i = 0; i < pixels.size(); ++i) {
    EXPECT_EQ(out[i], normalized(pixels[i], static_cast<int>(i % 3))) << "byte " << i;
  }
  // Into bfloat16: the floats rounded.
  std::vector<BFloat16> rounded(pixels.size());
  normalize_pixels(pixels.data(), static_cast<int64_t>(pixels.size()), rounded.data());
  for (size_t i = 0; i < pixels.size(); ++i) {
    EXPECT_EQ(rounded[i].bits, to_bfloat16(out[i]).bits) << "byte " << i;
  }
}

TEST(Transforms, CopyPixelsMirrorsWhenFlipped) {
  cv::Mat rgb(1, 2, CV_8UC3);
  rgb.at<cv::Vec3b>(0, 0) = {255, 0, 128};
  rgb.at<cv::Vec3b>(0, 1) = {0, 255, 1};
  std::vector<uint8_t> out(6), flipped(6);
  copy_pixels(rgb, /*flip=*/false, out.data());
  copy_pixels(rgb, /*flip=*/true, flipped.data());
  EXPECT_EQ(out, (std::vector<uint8_t>{255, 0, 128, 0, 255, 1}));
  EXPECT_EQ(flipped, (std::vector<uint8_t>{0, 255, 1, 255, 0, 128}));
}

TEST(Transforms, ImageNetTestResizesTheShorterSideThenCropsTheCenter) {
  // 256x300 at image_size 224: the shorter side is already 256, so only the center crop acts,
  // from row 16 and column round(76 / 2) = 38.
  const int size = 224;
  Rng rng({0});
  std::vector<float> out = transformed(make_transform("imagenet", /*train=*/false, size),
                                       coordinate_image(256, 300), rng, size);
  EXPECT_EQ(out_pixel(out, size, 0, 0), expected_pixel(38, 16, 7));
  EXPECT_EQ(out_pixel(out, size, 223, 223), expected_pixel((38 + 223) % 256, 16 + 223, 7));

  // A constant 600x400 image stays constant through the resize.
  cv::Mat gray(600, 400, CV_8UC3, cv::Scalar::all(90));
  out = transformed(make_transform("imagenet", false, size), gray, rng, size);
  EXPECT_EQ(out_pixel(out, size, 100, 50), expected_pixel(90, 90, 90));
}

TEST(Transforms, ImageNetTrainDrawsTheCropThenTheFlip) {
  const int size = 8;
  const cv::Mat image = coordinate_image(60, 90);
  int flips = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    Rng rng({seed}), replay({seed});
    const std::vector<float> out =
        transformed(make_transform("imagenet", /*train=*/true, size), image, rng, size);

    const Box box = random_resized_crop_box(image.rows, image.cols, replay);
    const cv::Mat crop = resize_image(image(cv::Rect(box.left, box.top, box.width, box.height)),
                                      size, size, {0, 0, size, size}, Interpolation::kBilinear);
    const bool flip = replay.uniform() < 0.5;
    std::vector<uint8_t> expected(size * size * 3);
    copy_pixels(crop, flip, expected.data());
    ASSERT_EQ(out, normalized_floats(expected)) << "seed " << seed;
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
    const std::vector<float> out =
        transformed(make_transform("cifar", /*train=*/true, size), image, rng, size);
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
  Rng rng({0});
  const std::vector<float> out = transformed(make_transform("cifar", /*train=*/false, size),
                                             coordinate_image(size, size), rng, size);
  EXPECT_EQ(out_pixel(out, size, 0, 0), expected_pixel(0, 0, 7));
  EXPECT_EQ(out_pixel(out, size, 4, 3), expected_pixel(3, 4, 7));
}

TEST(Transforms, UnknownAugmentIsAnError) {
  EXPECT_THROW(make_transform("autoaugment", true, 32), Error);
}

}  // namespace
}  // namespace xtrain
