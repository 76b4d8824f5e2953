#include "data/tensor_affine.h"

#include <cmath>
#include <cstdint>

#include "lib/base/check.h"

namespace xtrain {
namespace {

constexpr int kChannels = 3;

// grid_sample's un-normalization for align_corners=False: ((g + 1) * size - 1) / 2, as ATen's
// kernel writes it, (g + 1) * (size / 2) - 0.5, whose multiply and subtract the compiler fused.
inline float unnormalize(float g, float half_size) { return std::fma(g + 1.0f, half_size, -0.5f); }

inline float pixel_or_zero(const cv::Mat& in, int y, int x, int c) {
  if (x < 0 || x >= in.cols || y < 0 || y >= in.rows) return 0.0f;
  return static_cast<float>(in.ptr<uint8_t>(y)[x * kChannels + c]);
}

}  // namespace

cv::Mat tensor_affine_bilinear(const cv::Mat& rgb, const AffineMatrix& a) {
  XTRAIN_CHECK(rgb.type() == CV_8UC3, "tensor_affine_bilinear: expected 8-bit RGB pixels");
  const int h = rgb.rows, w = rgb.cols;
  // theta.transpose(1, 2) / [0.5 w, 0.5 h], in float32: r[k][j] for input coordinate j.
  const float theta[6] = {static_cast<float>(a[0]), static_cast<float>(a[1]),
                          static_cast<float>(a[2]), static_cast<float>(a[3]),
                          static_cast<float>(a[4]), static_cast<float>(a[5])};
  const float half_w = static_cast<float>(0.5 * w), half_h = static_cast<float>(0.5 * h);
  const float r[3][2] = {{theta[0] / half_w, theta[3] / half_h},
                         {theta[1] / half_w, theta[4] / half_h},
                         {theta[2] / half_w, theta[5] / half_h}};
  cv::Mat out(rgb.size(), CV_8UC3);
  for (int y = 0; y < h; ++y) {
    const float by = static_cast<float>(-h * 0.5 + 0.5 + y);  // exact: a half-integer step of 1
    uint8_t* o = out.ptr<uint8_t>(y);
    for (int x = 0; x < w; ++x) {
      const float bx = static_cast<float>(-w * 0.5 + 0.5 + x);
      const float gx = bx * r[0][0] + by * r[1][0] + r[2][0];
      const float gy = bx * r[0][1] + by * r[1][1] + r[2][1];
      const float ix = unnormalize(gx, static_cast<float>(w) / 2);
      const float iy = unnormalize(gy, static_cast<float>(h) / 2);
      const float x_w = std::floor(ix), y_n = std::floor(iy);
      const float we = ix - x_w, ea = 1.0f - we, no = iy - y_n, so = 1.0f - no;
      const float nw = so * ea, ne = so * we, sw = no * ea, se = no * we;
      const int xi = static_cast<int>(x_w), yi = static_cast<int>(y_n);
      for (int c = 0; c < kChannels; ++c) {
        // nw_val * nw + ne_val * ne + sw_val * sw + se_val * se, each add fused with the
        // product after it, as ATen's AVX2 kernel was compiled.
        float v = pixel_or_zero(rgb, yi, xi, c) * nw;
        v = std::fma(pixel_or_zero(rgb, yi, xi + 1, c), ne, v);
        v = std::fma(pixel_or_zero(rgb, yi + 1, xi, c), sw, v);
        v = std::fma(pixel_or_zero(rgb, yi + 1, xi + 1, c), se, v);
        const float rounded = std::nearbyint(v);  // torch.round: half to even
        o[x * kChannels + c] = static_cast<uint8_t>(rounded <= 0.0f     ? 0
                                                    : rounded >= 255.0f ? 255
                                                                        : rounded);
      }
    }
  }
  return out;
}

}  // namespace xtrain
