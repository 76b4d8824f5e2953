#include "lib/kernels/batchnorm.h"

#include <cmath>
#include <vector>

namespace xtrain::kernels {
namespace {

// Channels per chunk for the reductions; rows per chunk for the element-wise passes.
constexpr int64_t kMinChannelChunk = 8;
constexpr int64_t kMinRowChunk = 64;

// y[r, c] = x[r, c] * scale[c] + shift[c] over all rows, threads splitting rows.
void scale_shift(const BatchNormShape& s, const float* x, const float* scale, const float* shift,
                 float* y, const Exec& ex) {
  parallel_for(
      ex, s.m,
      [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const float* xr = x + r * s.c;
          float* yr = y + r * s.c;
          for (int c = 0; c < s.c; ++c) yr[c] = xr[c] * scale[c] + shift[c];
        }
      },
      kMinRowChunk);
}

}  // namespace

void batchnorm_forward_train(const BatchNormShape& s, const float* x, const float* gamma,
                             const float* beta, float* y, float* mean, float* inv_std,
                             float* running_mean, float* running_var, float momentum,
                             const Exec& ex) {
  parallel_for(
      ex, s.c,
      [&](int64_t c0, int64_t c1) {
        const int64_t width = c1 - c0;
        std::vector<double> sum(width, 0.0), sum_sq(width, 0.0);
        for (int64_t r = 0; r < s.m; ++r) {
          const float* xr = x + r * s.c + c0;
          for (int64_t j = 0; j < width; ++j) {
            sum[j] += xr[j];
            sum_sq[j] += double{xr[j]} * xr[j];
          }
        }
        for (int64_t j = 0; j < width; ++j) {
          const int64_t c = c0 + j;
          const double mu = sum[j] / s.m;
          const double var = std::max(0.0, sum_sq[j] / s.m - mu * mu);  // biased
          const double unbiased = s.m > 1 ? var * s.m / (s.m - 1) : var;
          mean[c] = static_cast<float>(mu);
          inv_std[c] = static_cast<float>(1.0 / std::sqrt(var + s.eps));
          running_mean[c] = (1 - momentum) * running_mean[c] + momentum * static_cast<float>(mu);
          running_var[c] =
              (1 - momentum) * running_var[c] + momentum * static_cast<float>(unbiased);
        }
      },
      kMinChannelChunk);
  // y = x * scale + shift with scale = gamma * inv_std, shift = beta - mean * scale.
  std::vector<float> scale(s.c), shift(s.c);
  for (int c = 0; c < s.c; ++c) {
    scale[c] = gamma[c] * inv_std[c];
    shift[c] = beta[c] - mean[c] * scale[c];
  }
  scale_shift(s, x, scale.data(), shift.data(), y, ex);
}

void batchnorm_forward_eval(const BatchNormShape& s, const float* x, const float* gamma,
                            const float* beta, const float* running_mean, const float* running_var,
                            float* y, const Exec& ex) {
  std::vector<float> scale(s.c), shift(s.c);
  for (int c = 0; c < s.c; ++c) {
    scale[c] = gamma[c] / std::sqrt(running_var[c] + s.eps);
    shift[c] = beta[c] - running_mean[c] * scale[c];
  }
  scale_shift(s, x, scale.data(), shift.data(), y, ex);
}

void batchnorm_backward(const BatchNormShape& s, const float* x, const float* dy,
                        const float* gamma, const float* mean, const float* inv_std, float* dx,
                        float* dgamma, float* dbeta, const Exec& ex) {
  // mean(dy) and mean(dy * xhat) per channel, kept for the dx pass.
  std::vector<float> mean_dy(s.c), mean_dy_xhat(s.c);
  parallel_for(
      ex, s.c,
      [&](int64_t c0, int64_t c1) {
        const int64_t width = c1 - c0;
        std::vector<double> sum_dy(width, 0.0), sum_dy_xc(width, 0.0);  // xc = x - mean
        for (int64_t r = 0; r < s.m; ++r) {
          const float* xr = x + r * s.c + c0;
          const float* dyr = dy + r * s.c + c0;
          for (int64_t j = 0; j < width; ++j) {
            sum_dy[j] += dyr[j];
            sum_dy_xc[j] += double{dyr[j]} * (xr[j] - mean[c0 + j]);
          }
        }
        for (int64_t j = 0; j < width; ++j) {
          const int64_t c = c0 + j;
          const double sum_dy_xhat = sum_dy_xc[j] * inv_std[c];
          dbeta[c] += static_cast<float>(sum_dy[j]);
          dgamma[c] += static_cast<float>(sum_dy_xhat);
          mean_dy[c] = static_cast<float>(sum_dy[j] / s.m);
          mean_dy_xhat[c] = static_cast<float>(sum_dy_xhat / s.m);
        }
      },
      kMinChannelChunk);
  if (dx == nullptr) return;
  parallel_for(
      ex, s.m,
      [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const float* xr = x + r * s.c;
          const float* dyr = dy + r * s.c;
          float* dxr = dx + r * s.c;
          for (int c = 0; c < s.c; ++c) {
            const float xhat = (xr[c] - mean[c]) * inv_std[c];
            dxr[c] = gamma[c] * inv_std[c] * (dyr[c] - mean_dy[c] - xhat * mean_dy_xhat[c]);
          }
        }
      },
      kMinRowChunk);
}

}  // namespace xtrain::kernels
