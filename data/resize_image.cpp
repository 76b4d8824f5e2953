#include "data/resize_image.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "lib/base/check.h"

namespace xtrain {
namespace {

constexpr int kPrecisionBits = 32 - 8 - 2;  // PIL's fixed point for 8-bit images
constexpr int kChannels = 3;

// A resampling filter as PIL defines one: its function and the distance at which it reaches 0.
struct Filter {
  double (*weight)(double x);
  double support;
};

double triangle(double x) {
  x = std::abs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}

// Keys' cubic convolution with a = -0.5, written as PIL writes it: the file is compiled without
// fused multiply-adds, so each product rounds as PIL's does.
double cubic(double x) {
  constexpr double a = -0.5;
  x = std::abs(x);
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
  if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
  return 0.0;
}

constexpr Filter kBilinear{triangle, 1.0};
constexpr Filter kBicubic{cubic, 2.0};

// The input pixels and weights of output pixels [out_first, out_first + out_count) of a 1-D
// resize from in_size to out_size (PIL's precompute_coeffs and normalize_coeffs_8bpc).
struct Taps {
  int stride = 0;                // weights per output pixel
  std::vector<int> first;        // first input pixel of each output pixel
  std::vector<int> count;        // input pixels it reads
  std::vector<int32_t> weights;  // [out_count, stride], kPrecisionBits fraction bits
};

// PIL's rounding of a weight to fixed point: half away from zero.
int32_t fixed_point(double weight) {
  const double scaled = weight * (1 << kPrecisionBits);
  return static_cast<int32_t>(weight < 0 ? -0.5 + scaled : 0.5 + scaled);
}

Taps filter_taps(const Filter& filter, int in_size, int out_size, int out_first, int out_count) {
  const double scale = static_cast<double>(in_size) / out_size;
  const double filter_scale = std::max(scale, 1.0);
  const double support = filter.support * filter_scale;  // widened when shrinking
  const double inverse_scale = 1.0 / filter_scale;
  Taps taps;
  taps.stride = static_cast<int>(std::ceil(support)) * 2 + 1;
  taps.first.resize(out_count);
  taps.count.resize(out_count);
  taps.weights.assign(static_cast<size_t>(out_count) * taps.stride, 0);
  std::vector<double> w(taps.stride);
  for (int o = 0; o < out_count; ++o) {
    const double center = (out_first + o + 0.5) * scale;
    // C casts as in PIL: they truncate toward zero.
    const int first = std::max(0, static_cast<int>(center - support + 0.5));
    const int count = std::min(in_size, static_cast<int>(center + support + 0.5)) - first;
    double total = 0.0;
    for (int k = 0; k < count; ++k) {
      w[k] = filter.weight((first + k - center + 0.5) * inverse_scale);
      total += w[k];
    }
    for (int k = 0; k < count; ++k) {
      const double normalized = total != 0.0 ? w[k] / total : w[k];
      taps.weights[static_cast<size_t>(o) * taps.stride + k] = fixed_point(normalized);
    }
    taps.first[o] = first;
    taps.count[o] = count;
  }
  return taps;
}

// Rounds a fixed-point sum to 8 bits, clamped (PIL's clip8): a cubic's negative lobes can take a
// sum below 0 or above 255.
uint8_t clip8(int32_t sum) {
  return static_cast<uint8_t>(std::clamp(sum >> kPrecisionBits, 0, 255));
}

// One output value: the weighted sum of `count` inputs `step` bytes apart.
uint8_t convolve(const uint8_t* in, int step, const int32_t* weights, int count) {
  int32_t sum = 1 << (kPrecisionBits - 1);
  for (int k = 0; k < count; ++k) sum += in[k * step] * weights[k];
  return clip8(sum);
}

// PIL's ImagingResample: along the rows, then down the columns.
cv::Mat resample(const cv::Mat& src, const Filter& filter, int out_height, int out_width,
                 const Box& window) {
  const Taps columns = filter_taps(filter, src.cols, out_width, window.left, window.width);
  const Taps rows = filter_taps(filter, src.rows, out_height, window.top, window.height);
  const int first_row = rows.first.front();
  const int last_row = rows.first.back() + rows.count.back();

  // Filter along each input row the window needs: [last_row - first_row, window.width] pixels.
  cv::Mat across(last_row - first_row, window.width, CV_8UC3);
  for (int y = first_row; y < last_row; ++y) {
    const uint8_t* in = src.ptr<uint8_t>(y);
    uint8_t* out = across.ptr<uint8_t>(y - first_row);
    for (int x = 0; x < window.width; ++x) {
      const int32_t* weights = &columns.weights[static_cast<size_t>(x) * columns.stride];
      for (int c = 0; c < kChannels; ++c) {
        out[x * kChannels + c] =
            convolve(in + columns.first[x] * kChannels + c, kChannels, weights, columns.count[x]);
      }
    }
  }
  // Then down each column.
  cv::Mat result(window.height, window.width, CV_8UC3);
  const int row_step = static_cast<int>(across.step[0]);
  for (int y = 0; y < window.height; ++y) {
    const int32_t* weights = &rows.weights[static_cast<size_t>(y) * rows.stride];
    const uint8_t* in = across.ptr<uint8_t>(rows.first[y] - first_row);
    uint8_t* out = result.ptr<uint8_t>(y);
    for (int i = 0; i < window.width * kChannels; ++i) {
      out[i] = convolve(in + i, row_step, weights, rows.count[y]);
    }
  }
  return result;
}

// The input pixel of each of out_size output pixels along one side (PIL's ImagingScaleAffine):
// the centre of output pixel i maps to in_size / out_size * (i + 0.5), a position PIL reaches by
// adding the step to a double once per pixel, whose rounding decides a centre that falls on a
// pixel boundary; it is truncated. -1 marks a pixel outside the input, which PIL leaves 0.
std::vector<int> nearest_pixels(int in_size, int out_size) {
  const double step = static_cast<double>(in_size) / out_size;
  std::vector<int> pixels(out_size);
  double position = step * 0.5;
  for (int i = 0; i < out_size; ++i) {
    const int pixel = position < 0.0 ? -1 : static_cast<int>(position);
    pixels[i] = pixel < in_size ? pixel : -1;
    position += step;
  }
  return pixels;
}

cv::Mat resize_nearest(const cv::Mat& src, int out_height, int out_width, const Box& window) {
  const std::vector<int> columns = nearest_pixels(src.cols, out_width);
  const std::vector<int> rows = nearest_pixels(src.rows, out_height);
  cv::Mat result(window.height, window.width, CV_8UC3, cv::Scalar::all(0));
  for (int y = 0; y < window.height; ++y) {
    const int row = rows[window.top + y];
    if (row < 0) continue;
    const uint8_t* in = src.ptr<uint8_t>(row);
    uint8_t* out = result.ptr<uint8_t>(y);
    for (int x = 0; x < window.width; ++x) {
      const int column = columns[window.left + x];
      if (column < 0) continue;
      std::copy_n(in + column * kChannels, kChannels, out + x * kChannels);
    }
  }
  return result;
}

}  // namespace

Interpolation interpolation_from_name(const std::string& name) {
  if (name == "nearest") return Interpolation::kNearest;
  if (name == "bilinear") return Interpolation::kBilinear;
  if (name == "bicubic") return Interpolation::kBicubic;
  throw_error(
      __FILE__, __LINE__,
      fmt::format("--interpolation: expected nearest, bilinear or bicubic, got '{}'", name));
}

const char* interpolation_name(Interpolation interpolation) {
  switch (interpolation) {
    case Interpolation::kNearest:
      return "nearest";
    case Interpolation::kBilinear:
      return "bilinear";
    case Interpolation::kBicubic:
      return "bicubic";
  }
  return "?";
}

cv::Mat resize_image(const cv::Mat& src, int out_height, int out_width, const Box& window,
                     Interpolation interpolation) {
  XTRAIN_CHECK(src.type() == CV_8UC3 && !src.empty(), "resize_image: expected 8-bit RGB");
  XTRAIN_CHECK(window.top >= 0 && window.left >= 0 && window.height > 0 && window.width > 0 &&
                   window.top + window.height <= out_height &&
                   window.left + window.width <= out_width,
               "resize_image: window {}x{} at ({}, {}) outside {}x{}", window.height, window.width,
               window.top, window.left, out_height, out_width);
  switch (interpolation) {
    case Interpolation::kNearest:
      return resize_nearest(src, out_height, out_width, window);
    case Interpolation::kBilinear:
      return resample(src, kBilinear, out_height, out_width, window);
    case Interpolation::kBicubic:
      return resample(src, kBicubic, out_height, out_width, window);
  }
  throw_error(__FILE__, __LINE__, "resize_image: unknown interpolation");
}

}  // namespace xtrain
