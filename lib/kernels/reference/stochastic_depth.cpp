#include "lib/kernels/reference/stochastic_depth.h"

namespace xtrain::kernels::reference {
namespace {

// As torchvision's stochastic_depth: noise in {0, 1} per sample divided by the survival rate in
// float32, then input * noise.
void apply_mask(const StochasticDepthShape& s, const float* in, float* out) {
  const float survival = static_cast<float>(1.0 - s.p);
  for (int64_t n = 0; n < s.samples; ++n) {
    const float noise = (stochastic_depth_keeps(s, n) ? 1.0f : 0.0f) / survival;
    for (int64_t j = 0; j < s.row_elements; ++j) {
      out[n * s.row_elements + j] = in[n * s.row_elements + j] * noise;
    }
  }
}

}  // namespace

void stochastic_depth_forward(const StochasticDepthShape& s, const float* x, float* y) {
  apply_mask(s, x, y);
}

void stochastic_depth_backward(const StochasticDepthShape& s, const float* dy, float* dx) {
  apply_mask(s, dy, dx);
}

}  // namespace xtrain::kernels::reference
