#include "lib/kernels/reference/layer_norm.h"

#include <cmath>
#include <vector>

namespace xtrain::kernels::reference {
namespace {

// Row r's mean and 1 / sqrt(biased variance + eps).
void row_statistics(const LayerNormShape& s, const float* x, int64_t r, double& mean,
                    double& rstd) {
  double sum = 0.0;
  for (int c = 0; c < s.c; ++c) sum += x[r * s.c + c];
  mean = sum / s.c;
  double var = 0.0;
  for (int c = 0; c < s.c; ++c) var += (x[r * s.c + c] - mean) * (x[r * s.c + c] - mean);
  rstd = 1.0 / std::sqrt(var / s.c + double{s.eps});
}

}  // namespace

void layer_norm_forward(const LayerNormShape& s, const float* x, const float* weight,
                        const float* bias, float* y) {
  for (int64_t r = 0; r < s.m; ++r) {
    double mean, rstd;
    row_statistics(s, x, r, mean, rstd);
    for (int c = 0; c < s.c; ++c) {
      const int64_t i = r * s.c + c;
      y[i] = static_cast<float>((x[i] - mean) * rstd * weight[c] + bias[c]);
    }
  }
}

void layer_norm_backward(const LayerNormShape& s, const float* x, const float* dy,
                         const float* weight, float* dx, float* dweight, float* dbias) {
  std::vector<double> dw(s.c, 0.0), db(s.c, 0.0);
  for (int64_t r = 0; r < s.m; ++r) {
    double mean, rstd;
    row_statistics(s, x, r, mean, rstd);
    double sum_g = 0.0, sum_g_xhat = 0.0;
    for (int c = 0; c < s.c; ++c) {
      const int64_t i = r * s.c + c;
      const double xhat = (x[i] - mean) * rstd;
      dw[c] += dy[i] * xhat;
      db[c] += dy[i];
      sum_g += dy[i] * double{weight[c]};
      sum_g_xhat += dy[i] * double{weight[c]} * xhat;
    }
    for (int c = 0; c < s.c; ++c) {
      const int64_t i = r * s.c + c;
      const double xhat = (x[i] - mean) * rstd;
      const double g = dy[i] * double{weight[c]};
      dx[i] = static_cast<float>(rstd * (g - sum_g / s.c - xhat * sum_g_xhat / s.c));
    }
  }
  for (int c = 0; c < s.c; ++c) {
    dweight[c] = static_cast<float>(dw[c]);
    dbias[c] = static_cast<float>(db[c]);
  }
}

}  // namespace xtrain::kernels::reference
