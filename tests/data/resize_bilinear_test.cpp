// resize_bilinear against values worked out by hand from PIL's algorithm: triangle weights
// widened by the scale when shrinking, renormalized at the borders.
#include "data/resize_bilinear.h"

#include <gtest/gtest.h>

#include <vector>

namespace xtrain {
namespace {

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

cv::Mat resize_whole(const cv::Mat& src, int height, int width) {
  return resize_bilinear(src, height, width, {0, 0, height, width});
}

TEST(ResizeBilinear, ShrinkingAveragesOverTheWidenedTriangle) {
  // 4 -> 2: scale 2, support 2. Output 0 centers at 1.0 and reads inputs 0..2 with triangle
  // weights 0.75, 0.75, 0.25 (/ 1.75): (0 * 3 + 70 * 3 + 140) / 7 = 50. Output 1 centers at 3.0:
  // inputs 1..3 weighted 1, 3, 3 (/ 7): (70 + 420 + 630) / 7 = 160.
  EXPECT_EQ(red_row(resize_whole(row_image({0, 70, 140, 210}), 1, 2)), (std::vector<int>{50, 160}));
}

TEST(ResizeBilinear, EnlargingInterpolatesBetweenPixelCenters) {
  // 2 -> 4: output centers at input 0.25, 0.75, 1.25, 1.75 (in pixel units, centers at +0.5);
  // the border outputs see only one input.
  EXPECT_EQ(red_row(resize_whole(row_image({0, 100}), 1, 4)), (std::vector<int>{0, 25, 75, 100}));
}

TEST(ResizeBilinear, SameSizeIsTheIdentity) {
  cv::Mat image(5, 7, CV_8UC3);
  cv::randu(image, 0, 256);
  const cv::Mat same = resize_whole(image, 5, 7);
  EXPECT_EQ(cv::countNonZero(same.reshape(1) != image.reshape(1)), 0);
}

TEST(ResizeBilinear, AConstantImageStaysConstant) {
  const cv::Mat image(37, 23, CV_8UC3, cv::Scalar(9, 99, 199));
  const cv::Mat resized = resize_whole(image, 11, 50);
  for (int y = 0; y < resized.rows; ++y) {
    for (int x = 0; x < resized.cols; ++x) {
      ASSERT_EQ(resized.at<cv::Vec3b>(y, x), cv::Vec3b(9, 99, 199)) << y << "," << x;
    }
  }
}

TEST(ResizeBilinear, AWindowIsThatPartOfTheWholeResult) {
  cv::Mat image(40, 30, CV_8UC3);
  cv::randu(image, 0, 256);
  const cv::Mat whole = resize_whole(image, 17, 23);
  const Box window{5, 3, 9, 12};
  const cv::Mat part = resize_bilinear(image, 17, 23, window);
  const cv::Mat expected = whole(cv::Rect(window.left, window.top, window.width, window.height));
  EXPECT_EQ(cv::countNonZero(part.reshape(1) != expected.reshape(1)), 0);
}

TEST(ResizeBilinear, ReadsOnlyTheCropItIsGiven) {
  // A crop is resized as an image of its own (torchvision crops, then resizes): the bright
  // pixels just outside it must not leak in at its borders.
  cv::Mat image(6, 6, CV_8UC3, cv::Scalar::all(255));
  image(cv::Rect(1, 1, 4, 4)).setTo(cv::Scalar::all(10));
  const cv::Mat resized = resize_whole(image(cv::Rect(1, 1, 4, 4)), 3, 3);
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 3; ++x) EXPECT_EQ(resized.at<cv::Vec3b>(y, x), cv::Vec3b::all(10));
  }
}

}  // namespace
}  // namespace xtrain
