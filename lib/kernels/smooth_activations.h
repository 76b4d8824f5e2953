// SiLU and Sigmoid, torch.nn's smooth activations (EfficientNet's), over n contiguous elements:
// x, y, dy and dx of one element type each, float32 or bfloat16 (a bfloat16 element is read
// exactly, the arithmetic is float32 and a stored result is rounded once). The scalar formulas
// follow torch's order of operations, and BatchNorm's fused SiLU (batchnorm.h) calls the same
// inline functions, so the two agree bit for bit. Both backwards take the gradient from x.
// y may alias x, and dx dy (in place).
// Not here: the piecewise-linear Hardswish and Hardsigmoid (hard_activations.h).
#pragma once

#include <cmath>
#include <cstdint>

#include "lib/parallel/exec.h"
#include "lib/tensor/elements.h"

namespace xtrain::kernels {

// torch's sigmoid: 1 / (1 + exp(-x)); exp overflows to infinity below about -88, giving 0.
inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// torch's silu: x / (1 + exp(-x)).
inline float silu(float x) { return x / (1.0f + std::exp(-x)); }

// torch's silu_backward: dy * s * (1 + x * (1 - s)), s = sigmoid(x).
inline float silu_grad(float x, float dy) {
  const float s = sigmoid(x);
  return dy * s * (1.0f + x * (1.0f - s));
}

// torch's sigmoid_backward takes s = sigmoid(x) from its output: dy * (1 - s) * s. Here s is
// computed again from x, so the layer need not keep its output.
inline float sigmoid_grad(float x, float dy) {
  const float s = sigmoid(x);
  return dy * (1.0f - s) * s;
}

// y = silu(x)
void silu_forward(int64_t n, ConstElements x, Elements y, const Exec& ex);
// dx = silu_grad(x, dy), from the forward's input x. dx is overwritten.
void silu_backward(int64_t n, ConstElements x, ConstElements dy, Elements dx, const Exec& ex);

// y = sigmoid(x)
void sigmoid_forward(int64_t n, ConstElements x, Elements y, const Exec& ex);
// dx = sigmoid_grad(x, dy), from the forward's input x. dx is overwritten.
void sigmoid_backward(int64_t n, ConstElements x, ConstElements dy, Elements dx, const Exec& ex);

}  // namespace xtrain::kernels
