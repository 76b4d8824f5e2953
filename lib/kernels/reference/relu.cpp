#include "lib/kernels/reference/relu.h"

#include <algorithm>

namespace xtrain::kernels::reference {

void relu_forward(int64_t n, const float* x, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::max(x[i], 0.0f);
}

void relu_backward(int64_t n, const float* y, const float* dy, float* dx) {
  for (int64_t i = 0; i < n; ++i) dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
}

}  // namespace xtrain::kernels::reference
