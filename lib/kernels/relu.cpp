#include "lib/kernels/relu.h"

#include <algorithm>

namespace xtrain::kernels {
namespace {

constexpr int64_t kMinChunk = 1 << 14;  // floats

// Calls fn(at, y_at, dy_at, n) over spans of n floats that start at `at` in x and dx, at y_at in
// y and at dy_at in dy: chunks of the whole when every row is dense, whole rows otherwise.
template <typename Fn>
void for_each_span(const ReLUShape& s, const Exec& ex, Fn&& fn) {
  if (s.y_row() == s.c && s.dy_row() == s.c) {
    parallel_for(
        ex, s.m * s.c, [&](int64_t b, int64_t e) { fn(b, b, b, e - b); }, kMinChunk);
    return;
  }
  parallel_for(
      ex, s.m,
      [&](int64_t b, int64_t e) {
        for (int64_t row = b; row < e; ++row) {
          fn(row * s.c, row * s.y_row(), row * s.dy_row(), s.c);
        }
      },
      std::max<int64_t>(1, kMinChunk / s.c));
}

}  // namespace

void relu_forward(const ReLUShape& s, const float* x, float* y, const Exec& ex) {
  for_each_span(s, ex, [&](int64_t at, int64_t y_at, int64_t, int64_t n) {
    const float* in = x + at;
    float* out = y + y_at;
    for (int64_t i = 0; i < n; ++i) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
  });
}

void relu_backward(const ReLUShape& s, const float* y, const float* dy, float* dx, const Exec& ex) {
  for_each_span(s, ex, [&](int64_t at, int64_t y_at, int64_t dy_at, int64_t n) {
    const float* out = y + y_at;
    const float* grad = dy + dy_at;
    float* dgrad = dx + at;
    for (int64_t i = 0; i < n; ++i) dgrad[i] = out[i] > 0.0f ? grad[i] : 0.0f;
  });
}

}  // namespace xtrain::kernels
