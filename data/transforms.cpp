#include "data/transforms.h"

#include <array>

#include "data/crop_boxes.h"
#include "data/resize_bilinear.h"
#include "lib/base/check.h"

namespace xtrain {
namespace {

constexpr int kChannels = 3;
constexpr float kImageNetMean[kChannels] = {0.485f, 0.456f, 0.406f};
constexpr float kImageNetStd[kChannels] = {0.229f, 0.224f, 0.225f};
constexpr int kCifarPadding = 4;

// normalized[c][v] = (v / 255 - mean[c]) / std[c], computed in float as torchvision does.
using NormalizeTable = std::array<std::array<float, 256>, kChannels>;

NormalizeTable make_normalize_table() {
  NormalizeTable table;
  for (int c = 0; c < kChannels; ++c) {
    for (int v = 0; v < 256; ++v) {
      table[c][v] = (static_cast<float>(v) / 255.0f - kImageNetMean[c]) / kImageNetStd[c];
    }
  }
  return table;
}

cv::Rect to_rect(const Box& box) { return cv::Rect(box.left, box.top, box.width, box.height); }

bool flip_coin(Rng& rng) { return rng.uniform() < 0.5; }  // RandomHorizontalFlip(p=0.5)

void imagenet_train(const cv::Mat& rgb, int size, Rng& rng, float* out) {
  const Box box = random_resized_crop_box(rgb.rows, rgb.cols, rng);
  const cv::Mat crop = resize_bilinear(rgb(to_rect(box)), size, size, {0, 0, size, size});
  normalize_image(crop, flip_coin(rng), out);
}

void imagenet_test(const cv::Mat& rgb, int size, float* out) {
  const Size2d resized = resized_shorter_side(rgb.rows, rgb.cols, test_resize_side(size));
  const Box crop = center_crop_box(resized.height, resized.width, size, size);
  normalize_image(resize_bilinear(rgb, resized.height, resized.width, crop), false, out);
}

// The image as size x size: itself when it is, else resized (shorter side) and center-cropped.
cv::Mat square(const cv::Mat& rgb, int size) {
  if (rgb.rows == size && rgb.cols == size) return rgb;
  const Size2d resized = resized_shorter_side(rgb.rows, rgb.cols, size);
  return resize_bilinear(rgb, resized.height, resized.width,
                         center_crop_box(resized.height, resized.width, size, size));
}

void cifar_train(const cv::Mat& rgb, int size, Rng& rng, float* out) {
  cv::Mat padded;
  cv::copyMakeBorder(square(rgb, size), padded, kCifarPadding, kCifarPadding, kCifarPadding,
                     kCifarPadding, cv::BORDER_CONSTANT, cv::Scalar::all(0));
  const Box box = random_crop_box(padded.rows, padded.cols, size, rng);
  normalize_image(padded(to_rect(box)), flip_coin(rng), out);
}

}  // namespace

void normalize_image(const cv::Mat& rgb, bool flip, float* out) {
  static const NormalizeTable table = make_normalize_table();
  for (int y = 0; y < rgb.rows; ++y) {
    const uint8_t* row = rgb.ptr<uint8_t>(y);
    for (int x = 0; x < rgb.cols; ++x) {
      const uint8_t* pixel = row + (flip ? rgb.cols - 1 - x : x) * kChannels;
      for (int c = 0; c < kChannels; ++c) out[c] = table[c][pixel[c]];
      out += kChannels;
    }
  }
}

Transform make_transform(const std::string& augment, bool train, int size) {
  XTRAIN_CHECK(augment == "imagenet" || augment == "cifar",
               "--augment: expected imagenet or cifar, got '{}'", augment);
  XTRAIN_CHECK(size > 0, "--image_size must be > 0, got {}", size);
  if (augment == "imagenet" && train) {
    return
        [size](const cv::Mat& rgb, Rng& rng, float* out) { imagenet_train(rgb, size, rng, out); };
  }
  if (augment == "imagenet") {
    return [size](const cv::Mat& rgb, Rng&, float* out) { imagenet_test(rgb, size, out); };
  }
  if (train) {
    return [size](const cv::Mat& rgb, Rng& rng, float* out) { cifar_train(rgb, size, rng, out); };
  }
  return [size](const cv::Mat& rgb, Rng&, float* out) {
    normalize_image(square(rgb, size), false, out);
  };
}

}  // namespace xtrain
