#include "lib/kernels/stochastic_depth.h"

#include <algorithm>

#include "lib/kernels/dropout.h"

namespace xtrain::kernels {
namespace {

constexpr int64_t kMinChunk = 1 << 14;  // elements

// out = in * mask[n] * scale over every sample's row, threads splitting the elements: the forward
// and the backward are the same product. Multiplying by 0 rather than writing 0 keeps torch's -0
// and NaN.
void apply_mask(const StochasticDepthShape& s, ConstElements in, Elements out, const Exec& ex) {
  const float scale = stochastic_depth_scale(s.p);
  with_typed(in, [&](const auto* x) {
    with_typed(out, [&](auto* y) {
      parallel_for(
          ex, s.samples * s.row_elements,
          [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e;) {
              const int64_t n = i / s.row_elements;
              const int64_t row_end = std::min(e, (n + 1) * s.row_elements);
              const float factor = stochastic_depth_keeps(s, n) ? scale : 0.0f;
              for (; i < row_end; ++i) store(value(x + i) * factor, y + i);
            }
          },
          kMinChunk);
    });
  });
}

}  // namespace

bool stochastic_depth_keeps(const StochasticDepthShape& s, int64_t n) {
  return hash_keeps(s.key, drop_threshold(s.p), s.first_sample + n);
}

float stochastic_depth_scale(double p) { return 1.0f / static_cast<float>(1.0 - p); }

void stochastic_depth_forward(const StochasticDepthShape& s, ConstElements x, Elements y,
                              const Exec& ex) {
  apply_mask(s, x, y, ex);
}

void stochastic_depth_backward(const StochasticDepthShape& s, ConstElements dy, Elements dx,
                               const Exec& ex) {
  apply_mask(s, dy, dx, ex);
}

}  // namespace xtrain::kernels
