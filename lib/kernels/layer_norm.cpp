#include "lib/kernels/layer_norm.h"

#include <cmath>
#include <type_traits>

#include "lib/base/check.h"
#include "lib/kernels/row_sums.h"

namespace xtrain::kernels {
namespace {

constexpr int64_t kMinRowChunk = 16;  // rows per thread's share of the forward

// The backward's parameter sums, dweight's and dbias's per channel, in chunks of rows.
RowChunks row_chunks(const LayerNormShape& s) { return {s.m, s.c, 2, 128}; }

template <typename X, typename Y>
void forward(const LayerNormShape& s, const X* x, const float* weight, const float* bias, Y* y,
             float* mean, float* rstd, const Exec& ex) {
  parallel_for(
      ex, s.m,
      [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const X* xr = x + r * s.c;
          double sum = 0.0;
          for (int c = 0; c < s.c; ++c) sum += value(xr + c);
          const double mu = sum / s.c;
          double sum_sq = 0.0;
          for (int c = 0; c < s.c; ++c) {
            const double d = value(xr + c) - mu;
            sum_sq += d * d;
          }
          const float rs = static_cast<float>(1.0 / std::sqrt(sum_sq / s.c + s.eps));
          const float shift = -rs * static_cast<float>(mu);
          mean[r] = static_cast<float>(mu);
          rstd[r] = rs;
          Y* yr = y + r * s.c;
          for (int c = 0; c < s.c; ++c)
            store((value(xr + c) * rs + shift) * weight[c] + bias[c], yr + c);
        }
      },
      kMinRowChunk);
}

template <typename X, typename Y>
void backward(const LayerNormShape& s, const X* x, const Y* dy, const float* weight,
              const float* mean, const float* rstd, X* dx, float* dweight, float* dbias,
              double* partials, const Exec& ex) {
  const auto add_rows = [&](int64_t r0, int64_t r1, double* partial) {
    double* __restrict dw = partial;
    double* __restrict db = partial + s.c;
    for (int64_t r = r0; r < r1; ++r) {
      const X* xr = x + r * s.c;
      const Y* dyr = dy + r * s.c;
      const float mu = mean[r], rs = rstd[r];
      double sum_g = 0.0, sum_g_xhat = 0.0;
      for (int c = 0; c < s.c; ++c) {
        const float d = value(dyr + c);
        const float xhat = (value(xr + c) - mu) * rs;
        const float g = d * weight[c];
        dw[c] += double{d} * xhat;
        db[c] += d;
        sum_g += g;
        sum_g_xhat += double{g} * xhat;
      }
      if (dx == nullptr) continue;
      const float mean_g = static_cast<float>(sum_g / s.c);
      const float mean_g_xhat = static_cast<float>(sum_g_xhat / s.c);
      X* dxr = dx + r * s.c;
      // The row's x and dy are read again (from cache) rather than kept: a step allocates
      // nothing, and a row may be any length.
      for (int c = 0; c < s.c; ++c) {
        const float xhat = (value(xr + c) - mu) * rs;
        const float g = value(dyr + c) * weight[c];
        store(rs * (g - mean_g - xhat * mean_g_xhat), dxr + c);
      }
    }
  };
  const double* totals = sum_rows_in_chunks(row_chunks(s), partials, add_rows, ex);
  for (int c = 0; c < s.c; ++c) {
    dweight[c] += static_cast<float>(totals[c]);
    dbias[c] += static_cast<float>(totals[s.c + c]);
  }
}

}  // namespace

size_t layer_norm_workspace_floats(const LayerNormShape& s) {
  return 2 * row_chunks(s).partial_doubles();
}

void layer_norm_forward(const LayerNormShape& s, ConstElements x, const float* weight,
                        const float* bias, Elements y, float* mean, float* rstd, const Exec& ex) {
  with_typed(x, [&](const auto* xt) {
    with_typed(y, [&](auto* yt) { forward(s, xt, weight, bias, yt, mean, rstd, ex); });
  });
}

void layer_norm_backward(const LayerNormShape& s, ConstElements x, ConstElements dy,
                         const float* weight, const float* mean, const float* rstd, Elements dx,
                         float* dweight, float* dbias, float* workspace, const Exec& ex) {
  XTRAIN_CHECK(dx.data == nullptr || dx.type == x.type,
               "layer_norm_backward: dx's element type differs from x's");
  double* partials = reinterpret_cast<double*>(workspace);
  with_typed(x, [&](const auto* xt) {
    using X = std::remove_const_t<std::remove_pointer_t<decltype(xt)>>;
    with_typed(dy, [&](const auto* dyt) {
      backward(s, xt, dyt, weight, mean, rstd, static_cast<X*>(dx.data), dweight, dbias, partials,
               ex);
    });
  });
}

}  // namespace xtrain::kernels
