#include "lib/kernels/add.h"

namespace xtrain::kernels {
namespace {
constexpr int64_t kMinChunk = 1 << 14;
}  // namespace

void add_forward(int64_t n, const float* a, const float* b, float* y, const Exec& ex) {
  parallel_for(
      ex, n,
      [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) y[i] = a[i] + b[i];
      },
      kMinChunk);
}

void accumulate(int64_t n, const float* x, float* y, const Exec& ex) {
  parallel_for(
      ex, n,
      [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) y[i] += x[i];
      },
      kMinChunk);
}

}  // namespace xtrain::kernels
