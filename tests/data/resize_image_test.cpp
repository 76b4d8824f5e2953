// resize_image against values worked out by hand from PIL's algorithms: triangle (bilinear) and
// Keys' cubic (bicubic, a = -0.5) weights widened by the scale when shrinking, renormalized at
// the borders; nearest takes the pixel under each output pixel's centre. The pixels of whole
// images against PIL's own are in transform_golden_test.cpp.
#include "data/resize_image.h"

#include <gtest/gtest.h>

#include <vector>

#include "lib/base/check.h"

namespace xtrain {
namespace {

constexpr Interpolation kAll[] = {Interpolation::kNearest, Interpolation::kBilinear,
                                  Interpolation::kBicubic};

// A 1-row RGB image whose three channels all hold `values`.
cv::Mat row_image(const std::vector<int>& values) {
  cv::Mat image(1, static_cast<int>(values.size()), CV_8UC3);
  for (size_t x = 0; x < values.size(); ++x) image.at<cv::Vec3b>(0, x) = cv::Vec3b::all(values[x]);
  return image;
}

std::vector<int> red_row(const cv::Mat& image) {
  std::vector<int> values;
  for (int x = 0; x < image.cols; ++x) values.push_back(image.at<cv::Vec3b>(0, x)[0]);
  return values;
}

cv::Mat resize_whole(const cv::Mat& src, int height, int width,
                     Interpolation interpolation = Interpolation::kBilinear) {
  return resize_image(src, height, width, {0, 0, height, width}, interpolation);
}

std::vector<int> resized_row(const std::vector<int>& values, int width,
                             Interpolation interpolation) {
  return red_row(resize_whole(row_image(values), 1, width, interpolation));
}

TEST(ResizeImage, BilinearShrinkingAveragesOverTheWidenedTriangle) {
  // 4 -> 2: scale 2, support 2. Output 0 centers at 1.0 and reads inputs 0..2 with triangle
  // weights 0.75, 0.75, 0.25 (/ 1.75): (0 * 3 + 70 * 3 + 140) / 7 = 50. Output 1 centers at 3.0:
  // inputs 1..3 weighted 1, 3, 3 (/ 7): (70 + 420 + 630) / 7 = 160.
  EXPECT_EQ(resized_row({0, 70, 140, 210}, 2, Interpolation::kBilinear),
            (std::vector<int>{50, 160}));
}

TEST(ResizeImage, BilinearEnlargingInterpolatesBetweenPixelCenters) {
  // 2 -> 4: output centers at input 0.25, 0.75, 1.25, 1.75 (in pixel units, centers at +0.5);
  // the border outputs see only one input.
  EXPECT_EQ(resized_row({0, 100}, 4, Interpolation::kBilinear), (std::vector<int>{0, 25, 75, 100}));
}

TEST(ResizeImage, BicubicEnlargingOvershootsAndIsClamped) {
  // 2 -> 4: output 1 centers at 0.75, reading inputs 0 and 1 at distances 0.25 and 0.75:
  // cubic(0.25) = 0.8671875, cubic(0.75) = 0.2265625, so 255 * 0.2265625 / 1.09375 = 52.8 -> 53.
  // Output 0 reads them at 0.25 and 1.25, where the cubic is negative (-0.0703125): 255 weighs
  // -0.088, and the sum, below 0, is clamped; output 3 overshoots 255 the same way.
  EXPECT_EQ(resized_row({0, 255}, 4, Interpolation::kBicubic), (std::vector<int>{0, 53, 202, 255}));
  // Away from the ends the overshoot shows: 50 - 100 * 0.088 = 41.2 -> 41.
  EXPECT_EQ(resized_row({50, 150}, 4, Interpolation::kBicubic),
            (std::vector<int>{41, 71, 129, 159}));
}

TEST(ResizeImage, BicubicShrinkingWidensTheCubic) {
  // 4 -> 2: scale 2, support 4. Output 0 centers at 1.0 and reads inputs 0..3 at distances
  // (0.5, 0.5, 1.5, 2.5) / 2: weights 0.867, 0.867, 0.227, -0.070 (/ 1.89):
  // (70 * 0.867 + 140 * 0.227 - 210 * 0.070) / 1.89 = 41.1 -> 41.
  EXPECT_EQ(resized_row({0, 70, 140, 210}, 2, Interpolation::kBicubic),
            (std::vector<int>{41, 169}));
}

TEST(ResizeImage, NearestTakesThePixelUnderEachCentre) {
  // 3 -> 7: centres at 3 / 7 * (i + 0.5) = 0.21, 0.64, 1.07, 1.5, 1.93, 2.36, 2.79, truncated.
  EXPECT_EQ(resized_row({10, 20, 30}, 7, Interpolation::kNearest),
            (std::vector<int>{10, 10, 20, 20, 20, 30, 30}));
  // 5 -> 2: centres at 1.25 and 3.75.
  EXPECT_EQ(resized_row({10, 20, 30, 40, 50}, 2, Interpolation::kNearest),
            (std::vector<int>{20, 40}));
}

TEST(ResizeImage, SameSizeIsTheIdentity) {
  cv::Mat image(5, 7, CV_8UC3);
  cv::randu(image, 0, 256);
  for (Interpolation interpolation : kAll) {
    const cv::Mat same = resize_whole(image, 5, 7, interpolation);
    EXPECT_EQ(cv::countNonZero(same.reshape(1) != image.reshape(1)), 0)
        << interpolation_name(interpolation);
  }
}

TEST(ResizeImage, AConstantImageStaysConstant) {
  const cv::Mat image(37, 23, CV_8UC3, cv::Scalar(9, 99, 199));
  for (Interpolation interpolation : kAll) {
    const cv::Mat resized = resize_whole(image, 11, 50, interpolation);
    for (int y = 0; y < resized.rows; ++y) {
      for (int x = 0; x < resized.cols; ++x) {
        ASSERT_EQ(resized.at<cv::Vec3b>(y, x), cv::Vec3b(9, 99, 199))
            << interpolation_name(interpolation) << " " << y << "," << x;
      }
    }
  }
}

TEST(ResizeImage, AWindowIsThatPartOfTheWholeResult) {
  cv::Mat image(40, 30, CV_8UC3);
  cv::randu(image, 0, 256);
  for (Interpolation interpolation : kAll) {
    for (const int height : {17, 61}) {  // shrinking and enlarging
      const cv::Mat whole = resize_whole(image, height, 23, interpolation);
      const Box window{5, 3, 9, 12};
      const cv::Mat part = resize_image(image, height, 23, window, interpolation);
      const cv::Mat expected =
          whole(cv::Rect(window.left, window.top, window.width, window.height));
      EXPECT_EQ(cv::countNonZero(part.reshape(1) != expected.reshape(1)), 0)
          << interpolation_name(interpolation) << " to height " << height;
    }
  }
}

TEST(ResizeImage, ReadsOnlyTheCropItIsGiven) {
  // A crop is resized as an image of its own (torchvision crops, then resizes): the bright
  // pixels just outside it must not leak in at its borders.
  cv::Mat image(6, 6, CV_8UC3, cv::Scalar::all(255));
  image(cv::Rect(1, 1, 4, 4)).setTo(cv::Scalar::all(10));
  for (Interpolation interpolation : kAll) {
    const cv::Mat resized = resize_whole(image(cv::Rect(1, 1, 4, 4)), 3, 3, interpolation);
    for (int y = 0; y < 3; ++y) {
      for (int x = 0; x < 3; ++x) {
        EXPECT_EQ(resized.at<cv::Vec3b>(y, x), cv::Vec3b::all(10))
            << interpolation_name(interpolation);
      }
    }
  }
}

TEST(ResizeImage, InterpolationNamesAreTorchvisions) {
  for (Interpolation interpolation : kAll) {
    EXPECT_EQ(interpolation_from_name(interpolation_name(interpolation)), interpolation);
  }
  try {
    interpolation_from_name("lanczos");
    FAIL() << "lanczos was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "--interpolation: expected nearest, bilinear or bicubic, got 'lanczos'");
  }
}

}  // namespace
}  // namespace xtrain
