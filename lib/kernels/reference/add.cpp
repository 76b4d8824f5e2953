#include "lib/kernels/reference/add.h"

namespace xtrain::kernels::reference {

void add_forward(int64_t n, const float* a, const float* b, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

void accumulate(int64_t n, const float* x, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}

}  // namespace xtrain::kernels::reference
