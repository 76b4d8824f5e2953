#include "lib/kernels/global_avg_pool.h"

#include <cstdint>

namespace xtrain::kernels {

void global_avg_pool_forward(const GlobalAvgPoolShape& s, const float* x, float* y,
                             const Exec& ex) {
  const float scale = 1.0f / s.hw;
  parallel_for(ex, s.n, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; ++n) {
      float* out = y + n * s.c;
      for (int c = 0; c < s.c; ++c) out[c] = 0.0f;
      for (int i = 0; i < s.hw; ++i) {
        const float* in = x + (n * s.hw + i) * s.c;
        for (int c = 0; c < s.c; ++c) out[c] += in[c];
      }
      for (int c = 0; c < s.c; ++c) out[c] *= scale;
    }
  });
}

void global_avg_pool_backward(const GlobalAvgPoolShape& s, const float* dy, float* dx,
                              const Exec& ex) {
  const float scale = 1.0f / s.hw;
  parallel_for(ex, int64_t{s.n} * s.hw, [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const float* grad = dy + (row / s.hw) * s.c;
      float* out = dx + row * s.c;
      for (int c = 0; c < s.c; ++c) out[c] = grad[c] * scale;
    }
  });
}

}  // namespace xtrain::kernels
