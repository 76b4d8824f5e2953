#include "lib/kernels/linear.h"

#include "lib/kernels/gemm.h"

namespace xtrain::kernels {

void linear_forward(const LinearShape& s, const float* x, const float* weight, const float* bias,
                    float* y, const Exec& ex, Precision precision) {
  gemm(false, true, s.n, s.out, s.in, 1.0f, x, s.in, weight, s.in, 0.0f, y, s.out, ex, precision);
  if (bias == nullptr) return;
  for (int i = 0; i < s.n; ++i) {
    for (int o = 0; o < s.out; ++o) y[int64_t{i} * s.out + o] += bias[o];
  }
}

void linear_backward_data(const LinearShape& s, const float* dy, const float* weight, float* dx,
                          const Exec& ex, Precision precision) {
  gemm(false, false, s.n, s.in, s.out, 1.0f, dy, s.out, weight, s.in, 0.0f, dx, s.in, ex,
       precision);
}

void linear_backward_weight(const LinearShape& s, const float* x, const float* dy, float* dweight,
                            float* dbias, const Exec& ex, Precision precision) {
  gemm(true, false, s.out, s.in, s.n, 1.0f, dy, s.out, x, s.in, 1.0f, dweight, s.in, ex, precision);
  if (dbias == nullptr) return;
  for (int i = 0; i < s.n; ++i) {
    for (int o = 0; o < s.out; ++o) dbias[o] += dy[int64_t{i} * s.out + o];
  }
}

}  // namespace xtrain::kernels
