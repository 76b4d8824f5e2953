#include "lib/kernels/reference/add.h"

#include <algorithm>

namespace xtrain::kernels::reference {

void add_forward(int64_t n, const float* a, const float* b, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

void add_relu_forward(int64_t n, const float* a, const float* b, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::max(a[i] + b[i], 0.0f);
}

void add_relu_backward(int64_t n, const float* y, const float* dy, float* da, float* db) {
  for (int64_t i = 0; i < n; ++i) {
    if (da != nullptr) da[i] = y[i] > 0.0f ? dy[i] : 0.0f;
    if (db != nullptr) db[i] = y[i] > 0.0f ? dy[i] : 0.0f;
  }
}

void accumulate(int64_t n, const float* x, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}

}  // namespace xtrain::kernels::reference
