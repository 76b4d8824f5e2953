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

void add_relu_forward(int64_t n, const float* a, const float* b, float* y, const Exec& ex) {
  parallel_for(
      ex, n,
      [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const float sum = a[i] + b[i];
          y[i] = sum > 0.0f ? sum : 0.0f;
        }
      },
      kMinChunk);
}

void add_relu_backward(int64_t n, const float* y, const float* dy, float* da, float* db,
                       const Exec& ex) {
  parallel_for(
      ex, n,
      [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const float masked = y[i] > 0.0f ? dy[i] : 0.0f;
          if (da != nullptr) da[i] = masked;
          if (db != nullptr) db[i] = masked;
        }
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
