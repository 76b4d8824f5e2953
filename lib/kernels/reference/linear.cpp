#include "lib/kernels/reference/linear.h"

#include <cstdint>

namespace xtrain::kernels::reference {

void linear_forward(const LinearShape& s, const float* x, const float* weight, const float* bias,
                    float* y) {
  for (int n = 0; n < s.n; ++n)
    for (int o = 0; o < s.out; ++o) {
      double sum = bias ? bias[o] : 0.0;
      for (int i = 0; i < s.in; ++i)
        sum += double{x[int64_t{n} * s.in + i]} * weight[int64_t{o} * s.in + i];
      y[int64_t{n} * s.out + o] = static_cast<float>(sum);
    }
}

void linear_backward_data(const LinearShape& s, const float* dy, const float* weight, float* dx) {
  for (int n = 0; n < s.n; ++n)
    for (int i = 0; i < s.in; ++i) {
      double sum = 0.0;
      for (int o = 0; o < s.out; ++o)
        sum += double{dy[int64_t{n} * s.out + o]} * weight[int64_t{o} * s.in + i];
      dx[int64_t{n} * s.in + i] = static_cast<float>(sum);
    }
}

void linear_backward_weight(const LinearShape& s, const float* x, const float* dy, float* dweight,
                            float* dbias) {
  for (int o = 0; o < s.out; ++o) {
    for (int i = 0; i < s.in; ++i) {
      double sum = 0.0;
      for (int n = 0; n < s.n; ++n)
        sum += double{dy[int64_t{n} * s.out + o]} * x[int64_t{n} * s.in + i];
      dweight[int64_t{o} * s.in + i] += static_cast<float>(sum);
    }
    if (dbias == nullptr) continue;
    double sum = 0.0;
    for (int n = 0; n < s.n; ++n) sum += dy[int64_t{n} * s.out + o];
    dbias[o] += static_cast<float>(sum);
  }
}

}  // namespace xtrain::kernels::reference
