#include "data/pil_affine.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "lib/base/check.h"

namespace xtrain {
namespace {

constexpr double kDegreesToRadians = M_PI / 180.0;  // Python's math.radians

// PIL's COORD(): a coordinate to a pixel index, -1 for any negative one.
inline int coord(double v) { return v < 0.0 ? -1 : static_cast<int>(v); }

inline void copy_pixel(const cv::Mat& in, int yin, int xin, uint8_t* out) {
  const uint8_t* p = in.ptr<uint8_t>(yin) + 3 * xin;
  out[0] = p[0];
  out[1] = p[1];
  out[2] = p[2];
}

// ImagingScaleAffine: a[1] == a[3] == 0, so each output column maps to one input column.
cv::Mat scale_affine(const cv::Mat& in, const AffineMatrix& a) {
  cv::Mat out = cv::Mat::zeros(in.size(), CV_8UC3);
  double xo = a[2] + a[0] * 0.5;
  double yo = a[5] + a[4] * 0.5;
  int xmin = in.cols, xmax = 0;
  std::vector<int> xintab(in.cols, 0);
  for (int x = 0; x < in.cols; ++x) {
    const int xin = coord(xo);
    if (xin >= 0 && xin < in.cols) {
      xmax = x + 1;
      if (x < xmin) xmin = x;
      xintab[x] = xin;
    }
    xo += a[0];
  }
  for (int y = 0; y < in.rows; ++y) {
    const int yin = coord(yo);
    if (yin >= 0 && yin < in.rows) {
      uint8_t* row = out.ptr<uint8_t>(y);
      for (int x = xmin; x < xmax; ++x) copy_pixel(in, yin, xintab[x], row + 3 * x);
    }
    yo += a[4];
  }
  return out;
}

// check_fixed: the map of (x, y) within 16.16 fixed point's range.
bool fits_fixed(const AffineMatrix& a, int x, int y) {
  return std::fabs(x * a[0] + y * a[1] + a[2]) < 32768.0 &&
         std::fabs(x * a[3] + y * a[4] + a[5]) < 32768.0;
}

// affine_fixed: the pixel centres stepped in 16.16 fixed point, each step rounded once.
cv::Mat affine_fixed(const cv::Mat& in, const AffineMatrix& a) {
  const auto fix = [](double v) { return static_cast<int>(std::floor(v * 65536.0 + 0.5)); };
  const int a0 = fix(a[0]), a1 = fix(a[1]), a3 = fix(a[3]), a4 = fix(a[4]);
  int a2 = fix(a[2] + a[0] * 0.5 + a[1] * 0.5);
  int a5 = fix(a[5] + a[3] * 0.5 + a[4] * 0.5);
  cv::Mat out = cv::Mat::zeros(in.size(), CV_8UC3);
  for (int y = 0; y < in.rows; ++y) {
    uint8_t* row = out.ptr<uint8_t>(y);
    int xx = a2, yy = a5;
    for (int x = 0; x < in.cols; ++x) {
      const int xin = xx >> 16, yin = yy >> 16;  // arithmetic shifts: floor, as PIL's
      if (xin >= 0 && xin < in.cols && yin >= 0 && yin < in.rows) {
        copy_pixel(in, yin, xin, row + 3 * x);
      }
      xx += a0;
      yy += a3;
    }
    a2 += a1;
    a5 += a4;
  }
  return out;
}

// ImagingTransformAffine's own loop, in doubles, for coordinates past fixed point's range.
cv::Mat affine_float(const cv::Mat& in, const AffineMatrix& a) {
  cv::Mat out = cv::Mat::zeros(in.size(), CV_8UC3);
  double xo = a[2] + a[1] * 0.5 + a[0] * 0.5;
  double yo = a[5] + a[4] * 0.5 + a[3] * 0.5;
  for (int y = 0; y < in.rows; ++y) {
    uint8_t* row = out.ptr<uint8_t>(y);
    double xx = xo, yy = yo;
    for (int x = 0; x < in.cols; ++x) {
      const int xin = coord(xx), yin = coord(yy);
      if (xin >= 0 && xin < in.cols && yin >= 0 && yin < in.rows) {
        copy_pixel(in, yin, xin, row + 3 * x);
      }
      xx += a[0];
      yy += a[3];
    }
    xo += a[1];
    yo += a[4];
  }
  return out;
}

// Python's round(v, 15): the decimal with 15 digits after the point nearest to v, read back.
double round_15_digits(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.15f", v);
  return std::strtod(text, nullptr);
}

// Python's a % b for b > 0: the result takes b's sign.
double python_mod(double a, double b) {
  const double r = std::fmod(a, b);
  return r < 0 ? r + b : r;
}

// Image.transpose's ROTATE_90/180/270: out pixel (x, y) of an image turned counter-clockwise by
// quarter_turns * 90 degrees.
cv::Mat transpose_rotate(const cv::Mat& in, int quarter_turns) {
  const bool swaps = quarter_turns % 2 == 1;
  cv::Mat out(swaps ? in.cols : in.rows, swaps ? in.rows : in.cols, CV_8UC3);
  for (int y = 0; y < in.rows; ++y) {
    for (int x = 0; x < in.cols; ++x) {
      int yo = y, xo = x;
      if (quarter_turns == 1) yo = in.cols - 1 - x, xo = y;
      if (quarter_turns == 2) yo = in.rows - 1 - y, xo = in.cols - 1 - x;
      if (quarter_turns == 3) yo = x, xo = in.rows - 1 - y;
      copy_pixel(in, y, x, out.ptr<uint8_t>(yo) + 3 * xo);
    }
  }
  return out;
}

}  // namespace

cv::Mat pil_affine_nearest(const cv::Mat& rgb, const AffineMatrix& a) {
  XTRAIN_CHECK(rgb.type() == CV_8UC3, "pil_affine_nearest: expected 8-bit RGB pixels");
  if (a[1] == 0 && a[3] == 0) return scale_affine(rgb, a);
  const int w = rgb.cols, h = rgb.rows;
  if (fits_fixed(a, 0, 0) && fits_fixed(a, w, h) && fits_fixed(a, 0, h) && fits_fixed(a, w, 0)) {
    return affine_fixed(rgb, a);
  }
  return affine_float(rgb, a);
}

cv::Mat pil_rotate_nearest(const cv::Mat& rgb, double angle_degrees) {
  const double angle = python_mod(angle_degrees, 360.0);
  if (angle == 0) return rgb.clone();
  if (angle == 180) return transpose_rotate(rgb, 2);
  if ((angle == 90 || angle == 270) && rgb.cols == rgb.rows) {
    return transpose_rotate(rgb, angle == 90 ? 1 : 3);
  }
  // Image.rotate's matrix: the inverse rotation about the centre, its terms rounded to 15
  // decimals, in Python's order of operations.
  const double center_x = rgb.cols / 2.0, center_y = rgb.rows / 2.0;
  const double radians = -(angle * kDegreesToRadians);
  AffineMatrix a = {round_15_digits(std::cos(radians)),  round_15_digits(std::sin(radians)), 0.0,
                    round_15_digits(-std::sin(radians)), round_15_digits(std::cos(radians)), 0.0};
  const double shift_x = a[0] * -center_x + a[1] * -center_y + a[2];
  const double shift_y = a[3] * -center_x + a[4] * -center_y + a[5];
  a[2] = shift_x + center_x;
  a[5] = shift_y + center_y;
  return pil_affine_nearest(rgb, a);
}

}  // namespace xtrain
