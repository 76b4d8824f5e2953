// The element-wise activations as torch.nn computes them: one scalar formula for each value and
// one for its gradient, taken from the activation's input x, in torch's order of operations. The
// standalone kernels below and BatchNorm's fused activations (batchnorm.h) call the same inline
// functions, so the two agree bit for bit. The kernels run over n contiguous elements: x, y, dy
// and dx of one element type each, float32 or bfloat16 (a bfloat16 element is read exactly, the
// arithmetic is float32 and a stored result is rounded once); y may alias x, and dx dy.
// Not here: the ReLU layer, whose backward reads its mask from the output (relu.h).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "lib/base/check.h"
#include "lib/kernels/vector_math.h"
#include "lib/parallel/exec.h"
#include "lib/tensor/elements.h"

namespace xtrain::kernels {

//   kNone        y = x
//   kReLU        y = max(x, 0)
//   kReLU6       y = min(max(x, 0), 6), torch.nn.ReLU6 (MobileNetV2's)
//   kHardswish   y = x * relu6(x + 3) / 6, torch.nn.Hardswish (MobileNetV3's)
//   kHardsigmoid y = relu6(x + 3) / 6, torch.nn.Hardsigmoid (MobileNetV3's gate)
//   kSiLU        y = x * sigmoid(x), torch.nn.SiLU (EfficientNet's)
//   kSigmoid     y = 1 / (1 + exp(-x)), torch.nn.Sigmoid (EfficientNet's and RegNetY's gate)
//   kGELU        y = x * Phi(x) = x / 2 * (1 + erf(x / sqrt(2))), torch.nn.GELU() (ConvNeXt's)
enum class Activation { kNone, kReLU, kReLU6, kHardswish, kHardsigmoid, kSiLU, kSigmoid, kGELU };

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
// computed again from x, so no layer need keep its output.
inline float sigmoid_grad(float x, float dy) {
  const float s = sigmoid(x);
  return dy * (1.0f - s) * s;
}

// torch's gelu (approximate='none'): x * 0.5 * (1 + erf(x * sqrt(1/2))). erf is vector_erf, not
// std::erf, so that the loop vectorizes; torch's vectorized CPU loop has its own erf too, and the
// two land within an ulp or two of each other.
inline float gelu(float x) {
  constexpr float kAlpha = 0.70710678118654752440f;  // sqrt(1/2)
  return x * 0.5f * (1.0f + vector_erf(x * kAlpha));
}

// torch's gelu_backward: dy * (Phi(x) + x * phi(x)), the normal distribution's cdf and density.
inline float gelu_grad(float x, float dy) {
  constexpr float kAlpha = 0.70710678118654752440f;  // sqrt(1/2)
  constexpr float kBeta = 0.39894228040143267794f;   // 1 / sqrt(2 pi)
  const float cdf = 0.5f * (1.0f + vector_erf(x * kAlpha));
  const float pdf = kBeta * vector_exp(x * x * -0.5f);
  return dy * (cdf + x * pdf);
}

// The activation is a template parameter and the ReLU6's clamp a compile-time constant: compared
// with a value read at run time (even infinity, for a plain ReLU), BatchNorm's backward loops ran
// several times slower, as GCC no longer vectorized them.
constexpr float kReLU6Max = 6.0f;

// kAct of v.
template <Activation kAct>
float activate(float v) {
  if constexpr (kAct == Activation::kNone) return v;
  if constexpr (kAct == Activation::kHardswish) return hardswish(v);
  if constexpr (kAct == Activation::kHardsigmoid) return hardsigmoid(v);
  if constexpr (kAct == Activation::kSiLU) return silu(v);
  if constexpr (kAct == Activation::kSigmoid) return sigmoid(v);
  if constexpr (kAct == Activation::kGELU) return gelu(v);
  v = v > 0.0f ? v : 0.0f;
  if constexpr (kAct == Activation::kReLU6) v = v < kReLU6Max ? v : kReLU6Max;
  return v;
}

// g through kAct's derivative at v, the value it saw: the ReLU's mask, the ReLU6's (torch's
// hardtanh_backward passes the gradient only strictly between 0 and 6), the others' slopes.
template <Activation kAct>
float through_activation(float v, float g) {
  if constexpr (kAct == Activation::kNone) return g;
  if constexpr (kAct == Activation::kReLU) return v > 0.0f ? g : 0.0f;
  if constexpr (kAct == Activation::kReLU6) return v > 0.0f && v < kReLU6Max ? g : 0.0f;
  if constexpr (kAct == Activation::kHardswish) return hardswish_grad(v, g);
  if constexpr (kAct == Activation::kHardsigmoid) return hardsigmoid_grad(v, g);
  if constexpr (kAct == Activation::kSiLU) return silu_grad(v, g);
  if constexpr (kAct == Activation::kGELU) return gelu_grad(v, g);
  return sigmoid_grad(v, g);
}

// fn(std::integral_constant<Activation, a>{}), the activation a compile-time constant, for a
// among kAmong: a kernel instantiates its loops for the activations it takes, and no others.
template <Activation... kAmong, typename Fn>
void with_activation(Activation a, Fn&& fn) {
  const bool found =
      ((a == kAmong && (fn(std::integral_constant<Activation, kAmong>{}), true)) || ...);
  XTRAIN_CHECK(found, "activation {} is not one this kernel takes", static_cast<int>(a));
}

// y = activate<a>(x)
void activation_forward(Activation a, int64_t n, ConstElements x, Elements y, const Exec& ex);
// dx = through_activation<a>(x, dy), from the forward's input x. dx is overwritten; it has x's
// element type and dy y's (a bfloat16 x may have a float32 y, and so a float32 dy).
void activation_backward(Activation a, int64_t n, ConstElements x, ConstElements dy, Elements dx,
                         const Exec& ex);

}  // namespace xtrain::kernels
