#include "data/transforms.h"

#include <array>

#include "data/auto_augment.h"
#include "data/crop_boxes.h"
#include "data/trivial_augment.h"
#include "lib/base/check.h"

namespace xtrain {
namespace {

constexpr int kChannels = 3;
constexpr float kImageNetMean[kChannels] = {0.485f, 0.456f, 0.406f};
constexpr float kImageNetStd[kChannels] = {0.229f, 0.224f, 0.225f};
constexpr int kCifarPadding = 4;

// A pixel value after ToTensor + Normalize by its channel's mean and std, in float as torchvision
// computes it.
inline float normalized(uint8_t v, float mean, float std) {
  return (static_cast<float>(v) / 255.0f - mean) / std;
}

// ImageNet's mean and std repeated over kGroup bytes (16 pixels), so that a group's loop walks
// contiguous lanes and vectorizes.
constexpr int kGroup = 16 * kChannels;
struct ChannelPattern {
  std::array<float, kGroup> mean, std;
};

ChannelPattern make_channel_pattern() {
  ChannelPattern p;
  for (int j = 0; j < kGroup; ++j) {
    p.mean[j] = kImageNetMean[j % kChannels];
    p.std[j] = kImageNetStd[j % kChannels];
  }
  return p;
}

cv::Rect to_rect(const Box& box) { return cv::Rect(box.left, box.top, box.width, box.height); }

bool flip_coin(Rng& rng) { return rng.uniform() < 0.5; }  // RandomHorizontalFlip(p=0.5)

cv::Mat auto_augmented(const cv::Mat& pixels, const TrainExtras& extras, Rng& rng) {
  if (extras.auto_augment == "ta_wide") return trivial_augment_wide(pixels, rng);
  if (extras.auto_augment == "ra") return rand_augment(pixels, extras.ra_magnitude, rng);
  if (extras.auto_augment == "augmix") return augmix(pixels, extras.augmix_severity, rng);
  return auto_augment_imagenet(pixels, rng);
}

// The steps after the flip: the auto-augment policy on `out` ([size, size, 3], in place), then
// RandomErasing's draws, whose box is erased after Normalize.
EraseBox train_extras(const TrainExtras& extras, int size, Rng& rng, uint8_t* out) {
  if (!extras.auto_augment.empty()) {
    cv::Mat pixels(size, size, CV_8UC3, out);
    auto_augmented(pixels, extras, rng).copyTo(pixels);
  }
  if (extras.random_erase == 0) return {};
  return random_erasing_box(size, size, extras.random_erase, rng);
}

EraseBox imagenet_train(const cv::Mat& rgb, int size, const TrainExtras& extras,
                        Interpolation interpolation, Rng& rng, uint8_t* out) {
  const Box box = random_resized_crop_box(rgb.rows, rgb.cols, rng);
  const cv::Mat crop =
      resize_image(rgb(to_rect(box)), size, size, {0, 0, size, size}, interpolation);
  copy_pixels(crop, flip_coin(rng), out);
  return train_extras(extras, size, rng, out);
}

void imagenet_test(const cv::Mat& rgb, int size, const Resampling& resampling, uint8_t* out) {
  const int side =
      resampling.test_resize_side > 0 ? resampling.test_resize_side : test_resize_side(size);
  const Size2d resized = resized_shorter_side(rgb.rows, rgb.cols, side);
  const Box crop = center_crop_box(resized.height, resized.width, size, size);
  copy_pixels(resize_image(rgb, resized.height, resized.width, crop, resampling.interpolation),
              false, out);
}

// The image as size x size: itself when it is, else resized (shorter side) and center-cropped.
cv::Mat square(const cv::Mat& rgb, int size, Interpolation interpolation) {
  if (rgb.rows == size && rgb.cols == size) return rgb;
  const Size2d resized = resized_shorter_side(rgb.rows, rgb.cols, size);
  return resize_image(rgb, resized.height, resized.width,
                      center_crop_box(resized.height, resized.width, size, size), interpolation);
}

EraseBox cifar_train(const cv::Mat& rgb, int size, const TrainExtras& extras,
                     Interpolation interpolation, Rng& rng, uint8_t* out) {
  cv::Mat padded;
  cv::copyMakeBorder(square(rgb, size, interpolation), padded, kCifarPadding, kCifarPadding,
                     kCifarPadding, kCifarPadding, cv::BORDER_CONSTANT, cv::Scalar::all(0));
  const Box box = random_crop_box(padded.rows, padded.cols, size, rng);
  copy_pixels(padded(to_rect(box)), flip_coin(rng), out);
  return train_extras(extras, size, rng, out);
}

}  // namespace

void copy_pixels(const cv::Mat& rgb, bool flip, uint8_t* out) {
  for (int y = 0; y < rgb.rows; ++y) {
    const uint8_t* row = rgb.ptr<uint8_t>(y);
    for (int x = 0; x < rgb.cols; ++x) {
      const uint8_t* pixel = row + (flip ? rgb.cols - 1 - x : x) * kChannels;
      for (int c = 0; c < kChannels; ++c) out[c] = pixel[c];
      out += kChannels;
    }
  }
}

void normalize_pixels(const uint8_t* pixels, int64_t n, Elements out) {
  XTRAIN_CHECK(n % kChannels == 0, "normalize_pixels: {} bytes are not RGB pixels", n);
  static const ChannelPattern pattern = make_channel_pattern();
  with_typed(out, [&](auto* o) {
    int64_t i = 0;
    for (; i + kGroup <= n; i += kGroup) {
      for (int j = 0; j < kGroup; ++j) {
        store(normalized(pixels[i + j], pattern.mean[j], pattern.std[j]), o + i + j);
      }
    }
    for (int j = 0; i + j < n; ++j) {
      store(normalized(pixels[i + j], pattern.mean[j], pattern.std[j]), o + i + j);
    }
  });
}

Transform make_transform(const std::string& augment, bool train, int size,
                         const TrainExtras& extras, const Resampling& resampling) {
  XTRAIN_CHECK(augment == "imagenet" || augment == "cifar",
               "--augment: expected imagenet or cifar, got '{}'", augment);
  XTRAIN_CHECK(size > 0, "--image_size must be > 0, got {}", size);
  const std::string& policy = extras.auto_augment;
  XTRAIN_CHECK(policy.empty() || policy == "ta_wide" || policy == "ra" || policy == "augmix" ||
                   policy == "imagenet",
               "--auto_augment: expected ta_wide, ra, augmix or imagenet, got '{}'", policy);
  XTRAIN_CHECK(extras.ra_magnitude >= 0 && extras.ra_magnitude < kRandAugmentBins,
               "--ra_magnitude: expected an integer from 0 to {}, got {}", kRandAugmentBins - 1,
               extras.ra_magnitude);
  XTRAIN_CHECK(extras.augmix_severity >= 1 && extras.augmix_severity <= kAugMixBins,
               "--augmix_severity: expected an integer from 1 to {}, got {}", kAugMixBins,
               extras.augmix_severity);
  XTRAIN_CHECK(extras.random_erase >= 0 && extras.random_erase <= 1,
               "--random_erase: expected a probability from 0 to 1, got {}", extras.random_erase);
  // torchvision's CenterCrop would pad a crop larger than the resized image with zeros.
  XTRAIN_CHECK(train || resampling.test_resize_side == 0 || resampling.test_resize_side >= size,
               "--val_resize_size={} is smaller than --val_crop_size={}: the center crop would "
               "not fit",
               resampling.test_resize_side, size);
  const Interpolation interpolation = resampling.interpolation;
  if (augment == "imagenet" && train) {
    return [size, extras, interpolation](const cv::Mat& rgb, Rng& rng, uint8_t* out) {
      return imagenet_train(rgb, size, extras, interpolation, rng, out);
    };
  }
  if (augment == "imagenet") {
    return [size, resampling](const cv::Mat& rgb, Rng&, uint8_t* out) {
      imagenet_test(rgb, size, resampling, out);
      return EraseBox{};
    };
  }
  if (train) {
    return [size, extras, interpolation](const cv::Mat& rgb, Rng& rng, uint8_t* out) {
      return cifar_train(rgb, size, extras, interpolation, rng, out);
    };
  }
  return [size, interpolation](const cv::Mat& rgb, Rng&, uint8_t* out) {
    copy_pixels(square(rgb, size, interpolation), false, out);
    return EraseBox{};
  };
}

}  // namespace xtrain
