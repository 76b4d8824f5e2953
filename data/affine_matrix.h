// affine_matrix: torchvision's _get_inverse_affine_matrix (no scale), in Python's order of
// operations: the map from output to input of a rotation by `angle` degrees and a shear by
// (shear_x, shear_y) degrees about (cx, cy), then a shift by (tx, ty). Its PIL callers give the
// centre in pixels; its tensor callers relative to the image's centre.
// Not here: how a matrix samples an image (pil_affine.h, tensor_affine.h).
#pragma once

#include <array>

namespace xtrain {

// An inverse affine map, output to input: {a0, a1, a2, a3, a4, a5} takes (x, y) to
// (a0 x + a1 y + a2, a3 x + a4 y + a5).
using AffineMatrix = std::array<double, 6>;

AffineMatrix inverse_affine_matrix(double cx, double cy, double angle, double tx, double ty,
                                   double shear_x, double shear_y);

}  // namespace xtrain
