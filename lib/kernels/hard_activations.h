// Hardswish and Hardsigmoid, torch.nn's piecewise-linear activations (MobileNetV3's), over n
// contiguous elements: x, y, dy and dx of one element type each, float32 or bfloat16 (a bfloat16
// element is read exactly, the arithmetic is float32 and a stored result is rounded once).
// The scalar formulas are torch's own, in its order of operations, and BatchNorm's fused
// Hardswish (batchnorm.h) calls the same inline functions, so the two agree bit for bit.
// y may alias x, and dx dy (in place).
// Not here: the ReLU (relu.h), BatchNorm's fused activations (batchnorm.h).
#pragma once

#include <cstdint>

#include "lib/parallel/exec.h"
#include "lib/tensor/elements.h"

namespace xtrain::kernels {

// torch's hardswish: x * relu6(x + 3) / 6.
inline float hardswish(float x) {
  const float r = x + 3.0f > 0.0f ? x + 3.0f : 0.0f;
  return x * (r < 6.0f ? r : 6.0f) / 6.0f;
}

// torch's hardswish_backward: 0 below -3, dy * (x / 3 + 0.5) from -3 up to 3, dy from 3 on. At
// the kinks this is the derivative from the right (-0.5 dy at -3, dy at 3), as torch's vectorized
// CPU loop gives it; its scalar loop, which only takes the elements past the last full vector,
// gives 1.5 dy at 3.
inline float hardswish_grad(float x, float dy) {
  if (x < -3.0f) return 0.0f;
  return x < 3.0f ? dy * (x / 3.0f + 0.5f) : dy;
}

// torch's hardsigmoid: relu6(x + 3) / 6.
inline float hardsigmoid(float x) {
  const float r = x + 3.0f > 0.0f ? x + 3.0f : 0.0f;
  return (r < 6.0f ? r : 6.0f) / 6.0f;
}

// torch's hardsigmoid_backward: dy / 6 strictly between -3 and 3, 0 elsewhere (at +-3 too).
inline float hardsigmoid_grad(float x, float dy) {
  return x > -3.0f && x < 3.0f ? dy * (1.0f / 6.0f) : 0.0f;
}

// y = hardswish(x)
void hardswish_forward(int64_t n, ConstElements x, Elements y, const Exec& ex);
// dx = hardswish_grad(x, dy), from the forward's input x. dx is overwritten.
void hardswish_backward(int64_t n, ConstElements x, ConstElements dy, Elements dx, const Exec& ex);

// y = hardsigmoid(x)
void hardsigmoid_forward(int64_t n, ConstElements x, Elements y, const Exec& ex);
// dx = hardsigmoid_grad(x, dy), from the forward's input x. dx is overwritten.
void hardsigmoid_backward(int64_t n, ConstElements x, ConstElements dy, Elements dx,
                          const Exec& ex);

}  // namespace xtrain::kernels
