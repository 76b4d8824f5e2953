#include "lib/kernels/add.h"

#include "lib/base/check.h"

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

void accumulate(int64_t n, ConstElements x, Elements y, const Exec& ex) {
  XTRAIN_CHECK(x.type == y.type, "accumulate: the two operands differ in element type");
  const bool rounded = y.type == ElementType::kBFloat16;
  parallel_for(
      ex, n,
      [&](int64_t begin, int64_t end) {
        if (rounded) {
          const BFloat16* xs = x.bf16();
          BFloat16* ys = y.bf16();
          for (int64_t i = begin; i < end; ++i)
            ys[i] = to_bfloat16(to_float(ys[i]) + to_float(xs[i]));
        } else {
          const float* xs = x.f32();
          float* ys = y.f32();
          for (int64_t i = begin; i < end; ++i) ys[i] += xs[i];
        }
      },
      kMinChunk);
}

}  // namespace xtrain::kernels
