#include "lib/kernels/reference/channel_scale.h"

namespace xtrain::kernels::reference {

void channel_scale_forward(const ChannelScaleShape& s, const float* x, const float* scale,
                           float* y) {
  for (int n = 0; n < s.n; ++n) {
    for (int64_t p = 0; p < s.hw; ++p) {
      for (int c = 0; c < s.c; ++c) {
        const int64_t i = (n * s.hw + p) * s.c + c;
        y[i] = x[i] * scale[n * s.c + c];
      }
    }
  }
}

void channel_scale_backward(const ChannelScaleShape& s, const float* x, const float* scale,
                            const float* dy, float* dx, float* dscale) {
  for (int n = 0; n < s.n; ++n) {
    for (int c = 0; c < s.c; ++c) {
      double sum = 0.0;
      for (int64_t p = 0; p < s.hw; ++p) {
        const int64_t i = (n * s.hw + p) * s.c + c;
        sum += double{dy[i]} * x[i];
        dx[i] = dy[i] * scale[n * s.c + c];
      }
      dscale[n * s.c + c] = static_cast<float>(sum);
    }
  }
}

}  // namespace xtrain::kernels::reference
