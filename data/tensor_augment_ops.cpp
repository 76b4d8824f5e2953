#include "data/tensor_augment_ops.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "data/affine_matrix.h"
#include "data/tensor_affine.h"
#include "lib/base/check.h"

namespace xtrain {
namespace {

constexpr int kChannels = 3;
constexpr double kRadiansToDegrees = 180.0 / M_PI;  // Python's math.degrees

// F.affine with shear atan(magnitude) degrees about the top-left corner: a tensor's centre is
// given relative to the image's, (0 - w / 2, 0 - h / 2).
cv::Mat shear(const cv::Mat& rgb, double magnitude, bool along_x) {
  const double degrees = std::atan(magnitude) * kRadiansToDegrees;
  return tensor_affine_bilinear(
      rgb, inverse_affine_matrix(-rgb.cols * 0.5, -rgb.rows * 0.5, 0, 0, 0, along_x ? degrees : 0.0,
                                 along_x ? 0.0 : degrees));
}

// F.affine with translate int(magnitude) about the image's centre.
cv::Mat translate(const cv::Mat& rgb, double magnitude, bool along_x) {
  const double pixels = std::trunc(magnitude);
  return tensor_affine_bilinear(
      rgb, inverse_affine_matrix(0, 0, 0, along_x ? pixels : 0, along_x ? 0 : pixels, 0, 0));
}

// F.rotate: the tensor path inverts the angle's sign, about the image's centre.
cv::Mat rotate(const cv::Mat& rgb, double degrees) {
  return tensor_affine_bilinear(rgb, inverse_affine_matrix(0, 0, -degrees, 0, 0, 0, 0));
}

// functional_tensor._blend: (ratio * image + (1 - ratio) * degenerate).clamp(0, 255), truncated
// to uint8, in float32 (torch casts the Python floats to the image's float type).
// `degenerate(i)` is the degenerate's value at byte i.
template <typename Degenerate>
cv::Mat blend(const cv::Mat& rgb, double factor, Degenerate degenerate) {
  const float ratio = static_cast<float>(factor);
  const float other = static_cast<float>(1.0 - factor);
  cv::Mat out(rgb.size(), CV_8UC3);
  const uint8_t* in = rgb.ptr<uint8_t>();
  uint8_t* o = out.ptr<uint8_t>();
  for (size_t i = 0; i < rgb.total() * kChannels; ++i) {
    const float v = ratio * static_cast<float>(in[i]) + other * degenerate(i);
    o[i] = static_cast<uint8_t>(std::clamp(v, 0.0f, 255.0f));
  }
  return out;
}

// rgb_to_grayscale: 0.2989 r + 0.587 g + 0.114 b in float32, truncated to uint8.
uint8_t gray(const uint8_t* p) {
  return static_cast<uint8_t>(0.2989f * static_cast<float>(p[0]) +
                              0.587f * static_cast<float>(p[1]) +
                              0.114f * static_cast<float>(p[2]));
}

cv::Mat color(const cv::Mat& rgb, double factor) {
  const uint8_t* in = rgb.ptr<uint8_t>();
  return blend(rgb, factor,
               [in](size_t i) { return static_cast<float>(gray(in + i / kChannels * kChannels)); });
}

// The mean of the gray image in float32: its sum of whole numbers is exact in float32 below
// 2^24, then divided by the pixel count.
cv::Mat contrast(const cv::Mat& rgb, double factor) {
  const uint8_t* in = rgb.ptr<uint8_t>();
  int64_t sum = 0;
  for (size_t i = 0; i < rgb.total(); ++i) sum += gray(in + i * kChannels);
  const float mean = static_cast<float>(sum) / static_cast<float>(rgb.total());
  return blend(rgb, factor, [mean](size_t) { return mean; });
}

// _blurred_degenerate_image: the 3x3 kernel [1 1 1; 1 5 1; 1 1 1] / 13 inside the border,
// rounded, the border kept. Torch convolves in float32; its result lies within float32 error of
// (sum + 4 * centre) / 13, which is never within 1/26 of a half, so the exact quotient rounds
// the same.
cv::Mat sharpness(const cv::Mat& rgb, double factor) {
  if (rgb.cols <= 2 || rgb.rows <= 2) return rgb.clone();
  cv::Mat degenerate = rgb.clone();
  for (int y = 1; y + 1 < rgb.rows; ++y) {
    uint8_t* o = degenerate.ptr<uint8_t>(y);
    for (int x = 1; x + 1 < rgb.cols; ++x) {
      for (int c = 0; c < kChannels; ++c) {
        int sum = 0;
        for (int dy = -1; dy <= 1; ++dy) {
          const uint8_t* row = rgb.ptr<uint8_t>(y + dy);
          for (int dx = -1; dx <= 1; ++dx) sum += row[(x + dx) * kChannels + c];
        }
        sum += 4 * rgb.ptr<uint8_t>(y)[x * kChannels + c];
        o[x * kChannels + c] = static_cast<uint8_t>((2 * sum + 13) / 26);  // round(sum / 13)
      }
    }
  }
  const uint8_t* d = degenerate.ptr<uint8_t>();
  return blend(rgb, factor, [d](size_t i) { return static_cast<float>(d[i]); });
}

// functional_tensor.autocontrast: per channel, (value - min) * (255 / (max - min)) in float32,
// clamped and truncated; a channel of one value stays as it is.
cv::Mat autocontrast(const cv::Mat& rgb) {
  uint8_t lo[kChannels] = {255, 255, 255}, hi[kChannels] = {0, 0, 0};
  const uint8_t* in = rgb.ptr<uint8_t>();
  const size_t n = rgb.total() * kChannels;
  for (size_t i = 0; i < n; ++i) {
    lo[i % kChannels] = std::min(lo[i % kChannels], in[i]);
    hi[i % kChannels] = std::max(hi[i % kChannels], in[i]);
  }
  float minimum[kChannels], scale[kChannels];
  for (int c = 0; c < kChannels; ++c) {
    const bool flat = lo[c] == hi[c];
    minimum[c] = flat ? 0.0f : static_cast<float>(lo[c]);
    scale[c] = flat ? 1.0f : 255.0f / (static_cast<float>(hi[c]) - static_cast<float>(lo[c]));
  }
  cv::Mat out(rgb.size(), CV_8UC3);
  uint8_t* o = out.ptr<uint8_t>();
  for (size_t i = 0; i < n; ++i) {
    const int c = static_cast<int>(i % kChannels);
    const float v = (static_cast<float>(in[i]) - minimum[c]) * scale[c];
    o[i] = static_cast<uint8_t>(std::clamp(v, 0.0f, 255.0f));
  }
  return out;
}

}  // namespace

cv::Mat apply_tensor_augment_op(const cv::Mat& rgb, AugmentOp op, double magnitude) {
  XTRAIN_CHECK(rgb.type() == CV_8UC3 && rgb.isContinuous(),
               "apply_tensor_augment_op: expected contiguous 8-bit RGB pixels");
  switch (op) {
    case AugmentOp::kShearX:
      return shear(rgb, magnitude, /*along_x=*/true);
    case AugmentOp::kShearY:
      return shear(rgb, magnitude, /*along_x=*/false);
    case AugmentOp::kTranslateX:
      return translate(rgb, magnitude, /*along_x=*/true);
    case AugmentOp::kTranslateY:
      return translate(rgb, magnitude, /*along_x=*/false);
    case AugmentOp::kRotate:
      return rotate(rgb, magnitude);
    case AugmentOp::kBrightness:
      return blend(rgb, 1.0 + magnitude, [](size_t) { return 0.0f; });
    case AugmentOp::kColor:
      return color(rgb, 1.0 + magnitude);
    case AugmentOp::kContrast:
      return contrast(rgb, 1.0 + magnitude);
    case AugmentOp::kSharpness:
      return sharpness(rgb, 1.0 + magnitude);
    case AugmentOp::kAutoContrast:
      return autocontrast(rgb);
    case AugmentOp::kIdentity:
    case AugmentOp::kPosterize:
    case AugmentOp::kSolarize:
    case AugmentOp::kEqualize:
    case AugmentOp::kInvert:
      return apply_augment_op(rgb, op, magnitude);  // the same integer arithmetic as PIL's
  }
  XTRAIN_CHECK(false, "apply_tensor_augment_op: unknown operation {}", static_cast<int>(op));
  return {};
}

}  // namespace xtrain
