// GELU as torch.nn.GELU with approximate='none' (torch's default, ConvNeXt's activation), the
// exact form y = x * Phi(x) = x / 2 * (1 + erf(x / sqrt(2))), over n contiguous elements: x, y,
// dy and dx float32 or bfloat16, dx of x's type and dy of y's (a bfloat16 element is read
// exactly, the arithmetic is float32 and a stored result is rounded once). The formulas are
// torch's CPU kernel's, in its order of operations. y may alias x, and dx dy (in place).
// Not here: the tanh approximation (no model here uses it).
#pragma once

#include <cmath>
#include <cstdint>

#include "lib/parallel/exec.h"
#include "lib/tensor/elements.h"

namespace xtrain::kernels {

// torch's gelu: x * 0.5 * (1 + erf(x * sqrt(1/2))).
inline float gelu(float x) {
  constexpr float kAlpha = 0.70710678118654752440f;  // sqrt(1/2)
  return x * 0.5f * (1.0f + std::erf(x * kAlpha));
}

// torch's gelu_backward: dy * (Phi(x) + x * phi(x)), the normal distribution's cdf and density.
inline float gelu_grad(float x, float dy) {
  constexpr float kAlpha = 0.70710678118654752440f;  // sqrt(1/2)
  constexpr float kBeta = 0.39894228040143267794f;   // 1 / sqrt(2 pi)
  const float cdf = 0.5f * (1.0f + std::erf(x * kAlpha));
  const float pdf = kBeta * std::exp(x * x * -0.5f);
  return dy * (cdf + x * pdf);
}

// y = gelu(x)
void gelu_forward(int64_t n, ConstElements x, Elements y, const Exec& ex);
// dx = gelu_grad(x, dy), from the forward's input x. dx is overwritten.
void gelu_backward(int64_t n, ConstElements x, ConstElements dy, Elements dx, const Exec& ex);

}  // namespace xtrain::kernels
