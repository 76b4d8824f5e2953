#include "lib/kernels/layer_scale.h"

#include <type_traits>

#include "lib/base/check.h"
#include "lib/kernels/channel_scale.h"
#include "lib/kernels/row_sums.h"

namespace xtrain::kernels {
namespace {

// dscale's sums per channel, in chunks of rows.
RowChunks row_chunks(const LayerScaleShape& s) { return {s.m, s.c, 1, 128}; }

template <typename X, typename Y>
void backward(const LayerScaleShape& s, const X* x, const float* scale, const Y* dy, X* dx,
              float* dscale, double* partials, const Exec& ex) {
  const auto add_rows = [&](int64_t r0, int64_t r1, double* __restrict sums) {
    for (int64_t r = r0; r < r1; ++r) {
      const X* xr = x + r * s.c;
      const Y* dyr = dy + r * s.c;
      for (int c = 0; c < s.c; ++c) sums[c] += double{value(dyr + c) * value(xr + c)};
      if (dx == nullptr) continue;
      X* dxr = dx + r * s.c;
      for (int c = 0; c < s.c; ++c) store(value(dyr + c) * scale[c], dxr + c);
    }
  };
  const double* totals = sum_rows_in_chunks(row_chunks(s), partials, add_rows, ex);
  for (int c = 0; c < s.c; ++c) dscale[c] += static_cast<float>(totals[c]);
}

}  // namespace

size_t layer_scale_workspace_floats(const LayerScaleShape& s) {
  return 2 * row_chunks(s).partial_doubles();
}

// One scale for all rows is a channel scale over one image of M pixels.
void layer_scale_forward(const LayerScaleShape& s, ConstElements x, const float* scale, Elements y,
                         const Exec& ex) {
  channel_scale_forward({1, s.m, s.c}, x, scale, y, ex);
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
