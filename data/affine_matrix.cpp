#include "data/affine_matrix.h"

#include <cmath>

namespace xtrain {
namespace {

constexpr double kDegreesToRadians = M_PI / 180.0;  // Python's math.radians

}  // namespace

AffineMatrix inverse_affine_matrix(double cx, double cy, double angle, double tx, double ty,
                                   double shear_x, double shear_y) {
  const double rot = angle * kDegreesToRadians;
  const double sx = shear_x * kDegreesToRadians, sy = shear_y * kDegreesToRadians;
  const double a = std::cos(rot - sy) / std::cos(sy);
  const double b = -std::cos(rot - sy) * std::tan(sx) / std::cos(sy) - std::sin(rot);
  const double c = std::sin(rot - sy) / std::cos(sy);
  const double d = -std::sin(rot - sy) * std::tan(sx) / std::cos(sy) + std::cos(rot);
  AffineMatrix m = {d, -b, 0.0, -c, a, 0.0};
  m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty);
  m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty);
  m[2] += cx;
  m[5] += cy;
  return m;
}

}  // namespace xtrain
