#include "lib/kernels/reference/layer_scale.h"

namespace xtrain::kernels::reference {

void layer_scale_forward(const LayerScaleShape& s, const float* x, const float* scale, float* y) {
  for (int64_t r = 0; r < s.m; ++r) {
    for (int c = 0; c < s.c; ++c) y[r * s.c + c] = x[r * s.c + c] * scale[c];
  }
}

void layer_scale_backward(const LayerScaleShape& s, const float* x, const float* scale,
                          const float* dy, float* dx, float* dscale) {
  for (int c = 0; c < s.c; ++c) {
    double sum = 0.0;
    for (int64_t r = 0; r < s.m; ++r) {
      const int64_t i = r * s.c + c;
      sum += double{dy[i]} * x[i];
      dx[i] = dy[i] * scale[c];
    }
    dscale[c] = static_cast<float>(sum);
  }
}

}  // namespace xtrain::kernels::reference
