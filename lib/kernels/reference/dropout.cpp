#include "lib/kernels/reference/dropout.h"

namespace xtrain::kernels::reference {
namespace {

// As torch's native_dropout on CPU: in * mask * scale, mask in {0, 1}, scale = 1 / (1 - p)
// computed in double and rounded to float once.
void apply_mask(const DropoutShape& s, const float* in, float* out) {
  const auto scale = static_cast<float>(1.0 / (1.0 - double{s.p}));
  for (int64_t i = 0; i < s.n; ++i) {
    const float mask = dropout_keeps(s, i) ? 1.0f : 0.0f;
    out[i] = in[i] * mask * scale;
  }
}

}  // namespace

void dropout_forward(const DropoutShape& s, const float* x, float* y) { apply_mask(s, x, y); }

void dropout_backward(const DropoutShape& s, const float* dy, float* dx) { apply_mask(s, dy, dx); }

}  // namespace xtrain::kernels::reference
