#include "data/augment_ops.h"

#include <array>
#include <cmath>
#include <cstdint>

#include "data/affine_matrix.h"
#include "data/pil_affine.h"
#include "lib/base/check.h"

namespace xtrain {
namespace {

constexpr int kChannels = 3;
constexpr double kRadiansToDegrees = 180.0 / M_PI;  // Python's math.degrees

using Lut = std::array<uint8_t, 256>;
using Histogram = std::array<int64_t, 256>;

// ShearX/ShearY: F.affine with shear atan(magnitude) in degrees about the top-left corner.
cv::Mat shear(const cv::Mat& rgb, double magnitude, bool along_x) {
  const double degrees = std::atan(magnitude) * kRadiansToDegrees;
  return pil_affine_nearest(
      rgb, inverse_affine_matrix(0, 0, 0, 0, 0, along_x ? degrees : 0.0, along_x ? 0.0 : degrees));
}

// TranslateX/TranslateY: F.affine with translate int(magnitude) about PIL's centre (w/2, h/2).
cv::Mat translate(const cv::Mat& rgb, double magnitude, bool along_x) {
  const double pixels = std::trunc(magnitude);
  return pil_affine_nearest(
      rgb, inverse_affine_matrix(rgb.cols * 0.5, rgb.rows * 0.5, 0, along_x ? pixels : 0,
                                 along_x ? 0 : pixels, 0.0, 0.0));
}

// Image.blend(degenerate, image, factor): PIL's ImagingBlend, in float, truncated, clipped when
// the factor extrapolates.
cv::Mat blend(const cv::Mat& degenerate, const cv::Mat& image, double factor) {
  const float alpha = static_cast<float>(factor);  // PIL takes the factor as a C float
  if (alpha == 0.0f) return degenerate.clone();
  if (alpha == 1.0f) return image.clone();
  const bool interpolates = alpha >= 0 && alpha <= 1;
  cv::Mat out(image.size(), CV_8UC3);
  const int64_t n = image.total() * kChannels;
  const uint8_t* in1 = degenerate.ptr<uint8_t>();
  const uint8_t* in2 = image.ptr<uint8_t>();
  uint8_t* o = out.ptr<uint8_t>();
  for (int64_t i = 0; i < n; ++i) {
    const float v = static_cast<float>(in1[i]) + alpha * static_cast<float>(in2[i] - in1[i]);
    if (interpolates) {
      o[i] = static_cast<uint8_t>(v);
    } else {
      o[i] = v <= 0.0f ? 0 : v >= 255.0f ? 255 : static_cast<uint8_t>(v);
    }
  }
  return out;
}

// convert("L"): ITU-R 601-2 luma in PIL's 16-bit fixed point, rounded.
uint8_t luma(const uint8_t* rgb) {
  return static_cast<uint8_t>((rgb[0] * 19595 + rgb[1] * 38470 + rgb[2] * 7471 + 0x8000) >> 16);
}

// ImageEnhance.Color's degenerate: convert("L").convert("RGB").
cv::Mat grayscale(const cv::Mat& rgb) {
  cv::Mat out(rgb.size(), CV_8UC3);
  const uint8_t* in = rgb.ptr<uint8_t>();
  uint8_t* o = out.ptr<uint8_t>();
  for (size_t i = 0; i < rgb.total(); ++i, in += kChannels, o += kChannels) {
    o[0] = o[1] = o[2] = luma(in);
  }
  return out;
}

// ImageEnhance.Contrast's degenerate: the mean luma, int(mean + 0.5), everywhere.
cv::Mat mean_gray(const cv::Mat& rgb) {
  const uint8_t* in = rgb.ptr<uint8_t>();
  int64_t sum = 0;
  for (size_t i = 0; i < rgb.total(); ++i, in += kChannels) sum += luma(in);
  const double mean = static_cast<double>(sum) / static_cast<double>(rgb.total());
  return cv::Mat(rgb.size(), CV_8UC3, cv::Scalar::all(static_cast<int>(mean + 0.5)));
}

// ImageEnhance.Sharpness's degenerate: filter(ImageFilter.SMOOTH), PIL's 3x3 kernel
// [1 1 1; 1 5 1; 1 1 1] / 13 in float, summed from 0.5 (its rounding) a row at a time from the
// row below to the row above, and truncated. The border pixels stay as they are.
cv::Mat smooth(const cv::Mat& rgb) {
  cv::Mat out = rgb.clone();
  const float side = 1.0f / 13.0f, center = 5.0f / 13.0f;
  for (int y = 1; y + 1 < rgb.rows; ++y) {
    const uint8_t* rows[3] = {rgb.ptr<uint8_t>(y + 1), rgb.ptr<uint8_t>(y),
                              rgb.ptr<uint8_t>(y - 1)};
    uint8_t* o = out.ptr<uint8_t>(y);
    for (int x = 1; x + 1 < rgb.cols; ++x) {
      for (int c = 0; c < kChannels; ++c) {
        const int i = x * kChannels + c;
        float sum = 0.5f;
        for (int r = 0; r < 3; ++r) {
          const float middle = r == 1 ? center : side;
          sum += static_cast<float>(rows[r][i - kChannels]) * side +
                 static_cast<float>(rows[r][i]) * middle +
                 static_cast<float>(rows[r][i + kChannels]) * side;
        }
        o[i] = sum <= 0.0f ? 0 : sum >= 255.0f ? 255 : static_cast<uint8_t>(sum);
      }
    }
  }
  return out;
}

cv::Mat apply_luts(const cv::Mat& rgb, const std::array<Lut, kChannels>& luts) {
  cv::Mat out(rgb.size(), CV_8UC3);
  const uint8_t* in = rgb.ptr<uint8_t>();
  uint8_t* o = out.ptr<uint8_t>();
  for (size_t i = 0; i < rgb.total() * kChannels; ++i) o[i] = luts[i % kChannels][in[i]];
  return out;
}

cv::Mat apply_lut(const cv::Mat& rgb, const Lut& lut) { return apply_luts(rgb, {lut, lut, lut}); }

std::array<Histogram, kChannels> histograms(const cv::Mat& rgb) {
  std::array<Histogram, kChannels> h{};
  const uint8_t* in = rgb.ptr<uint8_t>();
  for (size_t i = 0; i < rgb.total() * kChannels; ++i) ++h[i % kChannels][in[i]];
  return h;
}

Lut identity_lut() {
  Lut lut;
  for (int i = 0; i < 256; ++i) lut[i] = static_cast<uint8_t>(i);
  return lut;
}

// ImageOps.posterize: keep the top `bits` bits.
Lut posterize_lut(int bits) {
  const int mask = ~((1 << (8 - bits)) - 1);
  Lut lut;
  for (int i = 0; i < 256; ++i) lut[i] = static_cast<uint8_t>(i & mask);
  return lut;
}

// ImageOps.solarize: invert the values at or above the threshold.
Lut solarize_lut(double threshold) {
  Lut lut;
  for (int i = 0; i < 256; ++i) lut[i] = static_cast<uint8_t>(i < threshold ? i : 255 - i);
  return lut;
}

// ImageOps.invert: 255 - value.
Lut invert_lut() {
  Lut lut;
  for (int i = 0; i < 256; ++i) lut[i] = static_cast<uint8_t>(255 - i);
  return lut;
}

// ImageOps.autocontrast (no cutoff): the channel's lowest and highest values stretched to 0 and
// 255, in doubles, truncated.
Lut autocontrast_lut(const Histogram& h) {
  int lo = 0, hi = 255;
  while (lo < 255 && h[lo] == 0) ++lo;
  while (hi > 0 && h[hi] == 0) --hi;
  if (hi <= lo) return identity_lut();
  const double scale = 255.0 / (hi - lo);
  const double offset = -lo * scale;
  Lut lut;
  for (int i = 0; i < 256; ++i) {
    const int v = static_cast<int>(i * scale + offset);
    lut[i] = static_cast<uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
  }
  return lut;
}

// ImageOps.equalize: value i to the channel's count below i over a step of 1/255 of its samples
// (the last present value's left out), in integers.
Lut equalize_lut(const Histogram& h) {
  int64_t total = 0, last = 0;
  int present = 0;
  for (int64_t count : h) {
    if (count == 0) continue;
    total += count;
    last = count;
    ++present;
  }
  const int64_t step = (total - last) / 255;
  if (present <= 1 || step == 0) return identity_lut();
  Lut lut;
  int64_t n = step / 2;
  for (int i = 0; i < 256; ++i) {
    lut[i] = static_cast<uint8_t>(std::min<int64_t>(n / step, 255));  // PIL clips its table
    n += h[i];
  }
  return lut;
}

cv::Mat per_channel(const cv::Mat& rgb, Lut (*make_lut)(const Histogram&)) {
  const std::array<Histogram, kChannels> h = histograms(rgb);
  return apply_luts(rgb, {make_lut(h[0]), make_lut(h[1]), make_lut(h[2])});
}

}  // namespace

cv::Mat apply_augment_op(const cv::Mat& rgb, AugmentOp op, double magnitude) {
  XTRAIN_CHECK(rgb.type() == CV_8UC3 && rgb.isContinuous(),
               "apply_augment_op: expected contiguous 8-bit RGB pixels");
  switch (op) {
    case AugmentOp::kIdentity:
      return rgb.clone();
    case AugmentOp::kShearX:
      return shear(rgb, magnitude, /*along_x=*/true);
    case AugmentOp::kShearY:
      return shear(rgb, magnitude, /*along_x=*/false);
    case AugmentOp::kTranslateX:
      return translate(rgb, magnitude, /*along_x=*/true);
    case AugmentOp::kTranslateY:
      return translate(rgb, magnitude, /*along_x=*/false);
    case AugmentOp::kRotate:
      return pil_rotate_nearest(rgb, magnitude);
    case AugmentOp::kBrightness:
      return blend(cv::Mat::zeros(rgb.size(), CV_8UC3), rgb, 1.0 + magnitude);
    case AugmentOp::kColor:
      return blend(grayscale(rgb), rgb, 1.0 + magnitude);
    case AugmentOp::kContrast:
      return blend(mean_gray(rgb), rgb, 1.0 + magnitude);
    case AugmentOp::kSharpness:
      return blend(smooth(rgb), rgb, 1.0 + magnitude);
    case AugmentOp::kPosterize:
      return apply_lut(rgb, posterize_lut(static_cast<int>(magnitude)));
    case AugmentOp::kSolarize:
      return apply_lut(rgb, solarize_lut(magnitude));
    case AugmentOp::kAutoContrast:
      return per_channel(rgb, autocontrast_lut);
    case AugmentOp::kEqualize:
      return per_channel(rgb, equalize_lut);
    case AugmentOp::kInvert:
      return apply_lut(rgb, invert_lut());
  }
  XTRAIN_CHECK(false, "apply_augment_op: unknown operation {}", static_cast<int>(op));
  return {};
}

}  // namespace xtrain
