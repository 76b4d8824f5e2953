#include "lib/kernels/relu.h"

namespace xtrain::kernels {
namespace {
constexpr int64_t kMinChunk = 1 << 14;
}  // namespace

void relu_forward(int64_t n, const float* x, float* y, const Exec& ex) {
  parallel_for(
      ex, n,
      [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
      },
      kMinChunk);
}

void relu_backward(int64_t n, const float* y, const float* dy, float* dx, const Exec& ex) {
  parallel_for(
      ex, n,
      [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
      },
      kMinChunk);
}

}  // namespace xtrain::kernels
