#include "lib/kernels/reference/batchnorm.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "lib/kernels/reference/activations.h"

namespace xtrain::kernels::reference {
namespace {

// act(v + residual[i]): the residual (when there is one), then BatchNormShape::activation.
float activate(const BatchNormShape& s, double v, const float* residual, int64_t i) {
  if (residual != nullptr) v += residual[i];
  return static_cast<float>(activation(s.activation, v));
}

}  // namespace

void batchnorm_forward_train(const BatchNormShape& s, const float* x, const float* residual,
                             const float* gamma, const float* beta, float* y, float* saved,
                             float* running_mean, float* running_var, float momentum) {
  float* mean = saved;
  float* inv_std = saved + s.c;
  float* scale = saved + 2 * s.c;
  float* shift = saved + 3 * s.c;
  for (int c = 0; c < s.c; ++c) {
    double mu = 0.0;
    for (int64_t r = 0; r < s.m; ++r) mu += x[r * s.c + c];
    mu /= s.m;
    double var = 0.0;
    for (int64_t r = 0; r < s.m; ++r) var += (x[r * s.c + c] - mu) * (x[r * s.c + c] - mu);
    var /= s.m;
    const double istd = 1.0 / std::sqrt(var + s.eps);
    for (int64_t r = 0; r < s.m; ++r) {
      const int64_t i = r * s.c + c;
      y[i] = activate(s, (x[i] - mu) * istd * gamma[c] + beta[c], residual, i);
    }
    mean[c] = static_cast<float>(mu);
    inv_std[c] = static_cast<float>(istd);
    scale[c] = static_cast<float>(gamma[c] * istd);
    shift[c] = static_cast<float>(beta[c] - mu * gamma[c] * istd);
    running_mean[c] = static_cast<float>((1 - momentum) * running_mean[c] + momentum * mu);
    running_var[c] =
        static_cast<float>((1 - momentum) * running_var[c] + momentum * var * s.m / (s.m - 1));
  }
}

void batchnorm_forward_again(const BatchNormShape& s, const float* x, const float* residual,
                             const float* saved, float* y) {
  const float* scale = saved + 2 * s.c;
  const float* shift = saved + 3 * s.c;
  for (int64_t r = 0; r < s.m; ++r) {
    for (int c = 0; c < s.c; ++c) {
      const int64_t i = r * s.c + c;
      y[i] = activate(s, double{x[i]} * scale[c] + shift[c], residual, i);
    }
  }
}

void batchnorm_forward_eval(const BatchNormShape& s, const float* x, const float* residual,
                            const float* gamma, const float* beta, const float* running_mean,
                            const float* running_var, float* y) {
  for (int64_t r = 0; r < s.m; ++r) {
    for (int c = 0; c < s.c; ++c) {
      const int64_t i = r * s.c + c;
      y[i] = activate(
          s,
          (x[i] - running_mean[c]) / std::sqrt(double{running_var[c]} + s.eps) * gamma[c] + beta[c],
          residual, i);
    }
  }
}

void batchnorm_backward(const BatchNormShape& s, const float* x, const float* y, const float* dy_in,
                        const float* gamma, const float* saved, float* dx, float* dresidual,
                        float* dgamma, float* dbeta) {
  const float* mean = saved;
  const float* inv_std = saved + s.c;
  std::vector<float> dy(dy_in, dy_in + s.m * s.c);
  if (s.activation == Activation::kHardswish || s.activation == Activation::kSiLU) {
    // Their derivative at the value they saw, rebuilt from x: their output does not give it back.
    std::vector<float> v(s.m * s.c);
    for (int64_t r = 0; r < s.m; ++r) {
      for (int c = 0; c < s.c; ++c) {
        v[r * s.c + c] =
            static_cast<float>(double{x[r * s.c + c]} * saved[2 * s.c + c] + saved[3 * s.c + c]);
      }
    }
    activation_backward(s.activation, s.m * s.c, v.data(), dy.data(), dy.data());
  } else if (s.activation != Activation::kNone) {
    const bool relu6 = s.activation == Activation::kReLU6;
    for (int64_t i = 0; i < s.m * s.c; ++i) {
      dy[i] = y[i] > 0.0f && (!relu6 || y[i] < 6.0f) ? dy[i] : 0.0f;
    }
  }
  if (dresidual != nullptr) std::copy(dy.begin(), dy.end(), dresidual);
  for (int c = 0; c < s.c; ++c) {
    double sum_dy = 0.0, sum_dy_xhat = 0.0;
    for (int64_t r = 0; r < s.m; ++r) {
      sum_dy += dy[r * s.c + c];
      sum_dy_xhat += double{dy[r * s.c + c]} * (x[r * s.c + c] - mean[c]) * inv_std[c];
    }
    dbeta[c] += static_cast<float>(sum_dy);
    dgamma[c] += static_cast<float>(sum_dy_xhat);
    if (dx == nullptr) continue;
    for (int64_t r = 0; r < s.m; ++r) {
      const double xhat = (x[r * s.c + c] - mean[c]) * double{inv_std[c]};
      dx[r * s.c + c] = static_cast<float>(
          gamma[c] * inv_std[c] * (dy[r * s.c + c] - sum_dy / s.m - xhat * sum_dy_xhat / s.m));
    }
  }
}

}  // namespace xtrain::kernels::reference
