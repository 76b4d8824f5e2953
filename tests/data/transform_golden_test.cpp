// Resizing and the imagenet test transform against torchvision's on PIL images: every resize,
// resized crop and test transform of tests/golden/transforms.json
// (scripts/make_transform_golden.py), with nearest, bilinear and bicubic interpolation, must give
// torchvision's 8-bit pixels to the bit (compared as FNV-1a hashes of the bytes).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "data/resize_image.h"
#include "data/transforms.h"
#include "tests/models/golden_file.h"

namespace xtrain {
namespace {

using json = nlohmann::json;

std::string fnv1a64(const uint8_t* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

std::string fnv1a64(const cv::Mat& rgb) {
  EXPECT_TRUE(rgb.isContinuous());
  return fnv1a64(rgb.ptr<uint8_t>(), rgb.total() * rgb.elemSize());
}

cv::Mat image_from_hex(const json& image) {
  const std::string hex = image["pixels"];
  cv::Mat rgb(image["height"].get<int>(), image["width"].get<int>(), CV_8UC3);
  EXPECT_EQ(hex.size(), 2 * rgb.total() * 3);
  uint8_t* p = rgb.ptr<uint8_t>();
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    p[i / 2] = std::stoi(hex.substr(i, 2), nullptr, 16);
  return rgb;
}

Interpolation interpolation_of(const json& c) {
  return interpolation_from_name(c["interpolation"].get<std::string>());
}

TEST(TransformGolden, ResizesGiveTorchvisionsPixels) {
  const json golden = testing::load_golden_file("transforms.json");
  int compared = 0;
  for (const json& image : golden["images"]) {
    const cv::Mat rgb = image_from_hex(image);
    for (const json& c : image["resize"]) {
      const int height = c["height"], width = c["width"];
      const cv::Mat out =
          resize_image(rgb, height, width, {0, 0, height, width}, interpolation_of(c));
      EXPECT_EQ(fnv1a64(out), c["hash"].get<std::string>())
          << c["interpolation"] << " " << rgb.cols << "x" << rgb.rows << " to " << width << "x"
          << height;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 30);
}

TEST(TransformGolden, ResizedCropsGiveTorchvisionsPixels) {
  const json golden = testing::load_golden_file("transforms.json");
  int compared = 0;
  for (const json& image : golden["images"]) {
    const cv::Mat rgb = image_from_hex(image);
    for (const json& c : image["resized_crop"]) {
      const std::vector<int> box = c["box"];  // top, left, height, width
      const int size = c["size"];
      const cv::Mat out = resize_image(rgb(cv::Rect(box[1], box[0], box[3], box[2])), size, size,
                                       {0, 0, size, size}, interpolation_of(c));
      EXPECT_EQ(fnv1a64(out), c["hash"].get<std::string>())
          << c["interpolation"] << " box " << c["box"] << " on " << rgb.cols << "x" << rgb.rows;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 18);
}

TEST(TransformGolden, TestTransformGivesTorchvisionsPixels) {
  const json golden = testing::load_golden_file("transforms.json");
  int compared = 0;
  for (const json& image : golden["images"]) {
    const cv::Mat rgb = image_from_hex(image);
    for (const json& c : image["test"]) {
      const int crop = c["crop"];
      const Resampling resampling{interpolation_of(c), c["resize"].get<int>()};
      const Transform transform = make_transform("imagenet", /*train=*/false, crop, {}, resampling);
      std::vector<uint8_t> out(size_t(crop) * crop * 3);
      Rng rng({1});
      transform(rgb, rng, out.data());
      EXPECT_EQ(fnv1a64(out.data(), out.size()), c["hash"].get<std::string>())
          << c["interpolation"] << " crop " << crop << " resize " << c["resize"] << " on "
          << rgb.cols << "x" << rgb.rows;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 24);
}

}  // namespace
}  // namespace xtrain
