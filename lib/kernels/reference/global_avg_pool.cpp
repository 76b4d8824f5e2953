#include "lib/kernels/reference/global_avg_pool.h"

#include <cstdint>

namespace xtrain::kernels::reference {

void global_avg_pool_forward(const GlobalAvgPoolShape& s, const float* x, float* y) {
  for (int n = 0; n < s.n; ++n)
    for (int c = 0; c < s.c; ++c) {
      double sum = 0.0;
      for (int i = 0; i < s.hw; ++i) sum += x[(int64_t{n} * s.hw + i) * s.c + c];
      y[int64_t{n} * s.c + c] = static_cast<float>(sum / s.hw);
    }
}

void global_avg_pool_backward(const GlobalAvgPoolShape& s, const float* dy, float* dx) {
  for (int n = 0; n < s.n; ++n)
    for (int i = 0; i < s.hw; ++i)
      for (int c = 0; c < s.c; ++c) {
        dx[(int64_t{n} * s.hw + i) * s.c + c] = dy[int64_t{n} * s.c + c] / s.hw;
      }
}

}  // namespace xtrain::kernels::reference
