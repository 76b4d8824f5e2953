#include "lib/kernels/dropout.h"

namespace xtrain::kernels {
namespace {

constexpr int64_t kMinChunk = 1 << 14;

// 1 / (1 - p), rounded once: 2 exactly for p = 0.5, as torch's mask holds.
float keep_scale(float p) { return static_cast<float>(1.0 / (1.0 - double{p})); }

// out = in * mask / (1 - p): the forward and the backward are the same product. Branch-free, so
// the hash vectorizes; multiplying by 0 rather than writing 0 keeps torch's -0 and NaN.
void apply_mask(const DropoutShape& s, const float* in, float* out, const Exec& ex) {
  parallel_for(
      ex, s.n,
      [&](int64_t b, int64_t e) {
        // Locals, not captures: a store through out could change a captured float, so the loop
        // would reload it every element and not vectorize.
        const uint32_t key = s.key, below = drop_threshold(s.p);
        const float scale = keep_scale(s.p);
        for (int64_t i = b; i < e; ++i) out[i] = in[i] * (hash_keeps(key, below, i) ? scale : 0.0f);
      },
      kMinChunk);
}

}  // namespace

uint32_t dropout_step_key(uint64_t seed, int64_t global_step, int ordinal) {
  const uint32_t step = fmix32(static_cast<uint32_t>(global_step));
  return fmix32(fmix32(static_cast<uint32_t>(seed) ^ step) ^ static_cast<uint32_t>(ordinal));
}

bool dropout_keeps(const DropoutShape& s, int64_t i) {
  return hash_keeps(s.key, drop_threshold(s.p), i);
}

void dropout_forward(const DropoutShape& s, const float* x, float* y, const Exec& ex) {
  apply_mask(s, x, y, ex);
}

void dropout_backward(const DropoutShape& s, const float* dy, float* dx, const Exec& ex) {
  apply_mask(s, dy, dx, ex);
}

}  // namespace xtrain::kernels
