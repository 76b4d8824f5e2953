#include "data/resize_bilinear.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "lib/base/check.h"

namespace xtrain {
namespace {

constexpr int kPrecisionBits = 32 - 8 - 2;  // PIL's fixed point for 8-bit images
constexpr int kChannels = 3;

// The input pixels and weights of output pixels [out_first, out_first + out_count) of a 1-D
// resize from in_size to out_size (PIL's precompute_coeffs and normalize_coeffs_8bpc).
struct Taps {
  int stride = 0;                // weights per output pixel
  std::vector<int> first;        // first input pixel of each output pixel
  std::vector<int> count;        // input pixels it reads
  std::vector<int32_t> weights;  // [out_count, stride], kPrecisionBits fraction bits
};

double triangle(double x) {
  x = std::abs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}

Taps bilinear_taps(int in_size, int out_size, int out_first, int out_count) {
  const double scale = static_cast<double>(in_size) / out_size;
  const double filter_scale = std::max(scale, 1.0);
  const double support = filter_scale;  // the triangle reaches 1 pixel, widened when shrinking
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
      w[k] = triangle((first + k - center + 0.5) / filter_scale);
      total += w[k];
    }
    for (int k = 0; k < count; ++k) {
      const double normalized = total != 0.0 ? w[k] / total : w[k];
      taps.weights[static_cast<size_t>(o) * taps.stride + k] =
          static_cast<int32_t>(std::lround(normalized * (1 << kPrecisionBits)));
    }
    taps.first[o] = first;
    taps.count[o] = count;
  }
  return taps;
}

// Rounds a fixed-point sum to 8 bits, clamped (PIL's clip8).
uint8_t clip8(int32_t sum) {
  return static_cast<uint8_t>(std::clamp(sum >> kPrecisionBits, 0, 255));
}

// One output value: the weighted sum of `count` inputs `step` bytes apart.
uint8_t filter(const uint8_t* in, int step, const int32_t* weights, int count) {
  int32_t sum = 1 << (kPrecisionBits - 1);
  for (int k = 0; k < count; ++k) sum += in[k * step] * weights[k];
  return clip8(sum);
}

}  // namespace

cv::Mat resize_bilinear(const cv::Mat& src, int out_height, int out_width, const Box& window) {
  XTRAIN_CHECK(src.type() == CV_8UC3 && !src.empty(), "resize_bilinear: expected 8-bit RGB");
  XTRAIN_CHECK(window.top >= 0 && window.left >= 0 && window.height > 0 && window.width > 0 &&
                   window.top + window.height <= out_height &&
                   window.left + window.width <= out_width,
               "resize_bilinear: window {}x{} at ({}, {}) outside {}x{}", window.height,
               window.width, window.top, window.left, out_height, out_width);
  const Taps columns = bilinear_taps(src.cols, out_width, window.left, window.width);
  const Taps rows = bilinear_taps(src.rows, out_height, window.top, window.height);
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
            filter(in + columns.first[x] * kChannels + c, kChannels, weights, columns.count[x]);
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
      out[i] = filter(in + i, row_step, weights, rows.count[y]);
    }
  }
  return result;
}

}  // namespace xtrain
