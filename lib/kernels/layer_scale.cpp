#include "lib/kernels/layer_scale.h"

#include <algorithm>
#include <type_traits>

#include "lib/base/check.h"

namespace xtrain::kernels {
namespace {

// Rows per chunk of dscale's partial sums: fixed by the shape alone, so the sums and the order
// they are added in are the same for any thread count.
constexpr int64_t kRowsPerChunk = 128;
constexpr int64_t kMinRowChunk = 64;  // rows per thread's share of the forward

int64_t num_chunks(const LayerScaleShape& s) { return (s.m + kRowsPerChunk - 1) / kRowsPerChunk; }

template <typename X, typename Y>
void forward(const LayerScaleShape& s, const X* x, const float* scale, Y* y, const Exec& ex) {
  parallel_for(
      ex, s.m,
      [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const X* xr = x + r * s.c;
          Y* yr = y + r * s.c;
          for (int c = 0; c < s.c; ++c) store(value(xr + c) * scale[c], yr + c);
        }
      },
      kMinRowChunk);
}

template <typename X, typename Y>
void backward(const LayerScaleShape& s, const X* x, const float* scale, const Y* dy, X* dx,
              float* dscale, double* partials, const Exec& ex) {
  const int64_t chunks = num_chunks(s);
  parallel_for(ex, chunks, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) {
      double* __restrict sums = partials + k * s.c;
      std::fill(sums, sums + s.c, 0.0);
      const int64_t r1 = std::min(s.m, (k + 1) * kRowsPerChunk);
      for (int64_t r = k * kRowsPerChunk; r < r1; ++r) {
        const X* xr = x + r * s.c;
        const Y* dyr = dy + r * s.c;
        for (int c = 0; c < s.c; ++c) sums[c] += double{value(dyr + c) * value(xr + c)};
        if (dx == nullptr) continue;
        X* dxr = dx + r * s.c;
        for (int c = 0; c < s.c; ++c) store(value(dyr + c) * scale[c], dxr + c);
      }
    }
  });
  // The chunks' sums in chunk order, each channel's total added to its gradient once.
  for (int c = 0; c < s.c; ++c) {
    double sum = 0.0;
    for (int64_t k = 0; k < chunks; ++k) sum += partials[k * s.c + c];
    dscale[c] += static_cast<float>(sum);
  }
}

}  // namespace

size_t layer_scale_workspace_floats(const LayerScaleShape& s) {
  return 2 * size_t(num_chunks(s) * s.c);  // doubles
}

void layer_scale_forward(const LayerScaleShape& s, ConstElements x, const float* scale, Elements y,
                         const Exec& ex) {
  with_typed(
      x, [&](const auto* xt) { with_typed(y, [&](auto* yt) { forward(s, xt, scale, yt, ex); }); });
}

void layer_scale_backward(const LayerScaleShape& s, ConstElements x, const float* scale,
                          ConstElements dy, Elements dx, float* dscale, float* workspace,
                          const Exec& ex) {
  XTRAIN_CHECK(dx.data == nullptr || dx.type == x.type,
               "layer_scale_backward: dx's element type differs from x's");
  double* partials = reinterpret_cast<double*>(workspace);
  with_typed(x, [&](const auto* xt) {
    using X = std::remove_const_t<std::remove_pointer_t<decltype(xt)>>;
    with_typed(dy, [&](const auto* dyt) {
      backward(s, xt, scale, dyt, static_cast<X*>(dx.data), dscale, partials, ex);
    });
  });
}

}  // namespace xtrain::kernels
