#include "lib/kernels/batchnorm.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <type_traits>

#include "lib/base/check.h"
#include "lib/kernels/bf16_pairs.h"
#include "lib/kernels/prefetch.h"
#include "lib/kernels/row_sums.h"
#include "lib/parallel/all_reduce.h"

namespace xtrain::kernels {
namespace {

// The reductions' two sums per channel, in chunks of a fixed count of rows.
RowChunks row_chunks(const BatchNormShape& s) { return {s.m, s.c, 2, 256}; }

// Rows per chunk for the element-wise passes.
constexpr int64_t kMinRowChunk = 64;

// Element i of a tensor stored in float32 or bfloat16, as a float (exact either way).
inline float value(const float* x, int64_t i) { return x[i]; }
inline float value(const BFloat16* x, int64_t i) { return to_float(x[i]); }

// out[r * stride + c] = fn(r, c) for rows r0 <= r < r1 and c < n: straight into float32; into
// bfloat16 through a buffer of floats on the stack and the CPU's converts (convert_to_bf16:
// the bits of to_bfloat16). Rows that lie back to back (stride n) share the buffer, so narrow
// rows (ResNet-20's 16 channels) are rounded a vector at a time too: rounding them one element
// at a time, or one short row per convert, made the bfloat16 passes slower than float32's.
constexpr int kRoundedChunk = 256;
template <typename Fn>
inline void put_rows(float* out, int64_t stride, int64_t r0, int64_t r1, int n, Fn&& fn) {
  for (int64_t r = r0; r < r1; ++r) {
    float* row = out + r * stride;
    for (int c = 0; c < n; ++c) row[c] = fn(r, c);
  }
}
template <typename Fn>
inline void put_rows(BFloat16* out, int64_t stride, int64_t r0, int64_t r1, int n, Fn&& fn) {
  float chunk[kRoundedChunk];
  if (stride == n && n <= kRoundedChunk) {
    const int64_t rows_per_chunk = kRoundedChunk / n;
    for (int64_t r = r0; r < r1; r += rows_per_chunk) {
      const int64_t rows = std::min(rows_per_chunk, r1 - r);
      for (int64_t i = 0; i < rows; ++i) {
        for (int c = 0; c < n; ++c) chunk[i * n + c] = fn(r + i, c);
      }
      convert_to_bf16(chunk, rows * n, reinterpret_cast<uint16_t*>(out + r * stride));
    }
    return;
  }
  for (int64_t r = r0; r < r1; ++r) {
    for (int c0 = 0; c0 < n; c0 += kRoundedChunk) {
      const int m = std::min(kRoundedChunk, n - c0);
      for (int c = 0; c < m; ++c) chunk[c] = fn(r, c0 + c);
      convert_to_bf16(chunk, m, reinterpret_cast<uint16_t*>(out + r * stride + c0));
    }
  }
}

// Two per-channel sums over all rows, in double (row_sums.h), into sum_a and sum_b [C]:
// add_rows(r0, r1, a, b) adds rows [r0, r1) into a[C] and b[C]. Inside a chunk the channel loops
// are contiguous, so they vectorize; add_rows takes four rows at a time (their sum first, then
// into a and b), since a and b [C] live in memory, not in registers, and one round trip per row
// would cost more than reading the row. add_rows declares a and b __restrict (they are the call's
// own scratch): otherwise GCC checks at run time whether they overlap the rows, and at 16
// channels took its scalar loop, with a branch per ReLU mask, several times slower.
void sum_over_rows(const BatchNormShape& s,
                   const std::function<void(int64_t, int64_t, double*, double*)>& add_rows,
                   double* partial, double* sum_a, double* sum_b, const Exec& ex) {
  const double* totals = sum_rows_in_chunks(
      row_chunks(s), partial,
      [&](int64_t r0, int64_t r1, double* p) { add_rows(r0, r1, p, p + s.c); }, ex);
  std::copy(totals, totals + s.c, sum_a);
  std::copy(totals + s.c, totals + 2 * s.c, sum_b);
}

// A call's scratch, carved from its workspace (batchnorm_workspace_floats): the reductions'
// per-chunk partial sums, their totals [2, C] and the count of rows they are over, and two
// per-channel float rows [2, C].
struct Scratch {
  double* partials;
  double* sums;
  float* per_channel;
};

Scratch carve(const BatchNormShape& s, float* workspace) {
  double* partials = reinterpret_cast<double*>(workspace);
  double* sums = partials + row_chunks(s).partial_doubles();
  return {partials, sums, reinterpret_cast<float*>(sums + 2 * s.c + 1)};
}

// The rows the sums in sums[0, 2C) are over, once added up over the replicas whose batches are
// one batch (Exec::batch_replicas, --sync_bn): this batch's M, or every replica's. sums[2C] holds
// the count while it is summed with them.
double sum_over_batch_replicas(const BatchNormShape& s, double* sums, const Exec& ex) {
  if (ex.batch_replicas == nullptr) return static_cast<double>(s.m);
  sums[2 * s.c] = static_cast<double>(s.m);
  ex.batch_replicas->sum_in_order(ex.replica_rank, sums, 2 * size_t(s.c) + 1);
  return sums[2 * s.c];
}

// x * scale + shift: batchnorm(x) before the residual and the activation. The forward and the
// backward's mask or derivative both compute it here, so the backward sees the value the forward's
// activation saw bit for bit (one expression, contracted to an FMA alike on every path).
inline float normalized(float x, float scale, float shift) { return x * scale + shift; }

// fn(the fused activation as a compile-time constant): only those BatchNorm fuses get loops.
template <typename Fn>
void with_fused_activation(Activation a, Fn&& fn) {
  using A = Activation;
  with_activation<A::kNone, A::kReLU, A::kReLU6, A::kHardswish, A::kSiLU>(a, fn);
}

// Only the ReLU follows an added residual: the others are MobileNet's and EfficientNet's, whose
// blocks add after the projection's plain BatchNorm.
constexpr bool takes_residual(Activation a) {
  return a == Activation::kNone || a == Activation::kReLU;
}

// y[r, c] = act(x[r, c] * scale[c] + shift[c] + residual[r, c]) over all rows, threads
// splitting rows; the residual is added only when kResidual.
template <Activation kAct, bool kResidual, typename X, typename R, typename Y>
void scale_shift(const BatchNormShape& s, const X* x, const R* residual, const float* scale,
                 const float* shift, Y* y, const Exec& ex) {
  parallel_for(
      ex, s.m,
      [&](int64_t r0, int64_t r1) {
        put_rows(y, s.y_row(), r0, r1, s.c, [&](int64_t r, int c) {
          const int64_t i = r * s.c + c;
          float v = normalized(value(x, i), scale[c], shift[c]);
          if (kResidual) v += value(residual, i);
          return activate<kAct>(v);
        });
      },
      kMinRowChunk);
}

void scale_shift(const BatchNormShape& s, ConstElements x, ConstElements residual,
                 const float* scale, const float* shift, Elements y, const Exec& ex) {
  with_typed(x, [&](const auto* xt) {
    with_typed(y, [&](auto* yt) {
      const bool added = residual.data != nullptr;
      XTRAIN_CHECK(!added || takes_residual(s.activation),
                   "batchnorm: a residual is added before the ReLU only");
      with_typed(residual, [&](const auto* rt) {
        with_fused_activation(s.activation, [&](auto act) {
          constexpr Activation kAct = decltype(act)::value;
          if constexpr (takes_residual(kAct)) {
            if (added) return scale_shift<kAct, true>(s, xt, rt, scale, shift, yt, ex);
          }
          scale_shift<kAct, false>(s, xt, rt, scale, shift, yt, ex);
        });
      });
    });
  });
}

}  // namespace

size_t batchnorm_workspace_floats(const BatchNormShape& s) {
  return 2 * (row_chunks(s).partial_doubles() + 2 * size_t(s.c) + 1) + 2 * size_t(s.c);
}

namespace {

// sum[c] and sum_sq[c] of x over all rows (sum_over_rows).
template <typename X>
void sum_and_squares(const BatchNormShape& s, const X* x, const Scratch& scratch, double* sum,
                     double* sum_sq, const Exec& ex) {
  const bool prefetch = batchnorm_prefetch_pays();
  sum_over_rows(
      s,
      [&](int64_t r0, int64_t r1, double* __restrict a, double* __restrict b) {
        const int channels = s.c;
        int64_t r = r0;
        for (; r + 4 <= r1; r += 4) {
          const X* x0 = x + r * channels;
          const X* x1 = x0 + channels;
          const X* x2 = x1 + channels;
          const X* x3 = x2 + channels;
          if (prefetch) prefetch_rows_ahead(x0, channels, 4, channels);
          for (int c = 0; c < channels; ++c) {
            const double v0 = value(x0, c), v1 = value(x1, c), v2 = value(x2, c), v3 = value(x3, c);
            a[c] += (v0 + v1) + (v2 + v3);
            b[c] += (v0 * v0 + v1 * v1) + (v2 * v2 + v3 * v3);
          }
        }
        for (; r < r1; ++r) {
          const X* xr = x + r * channels;
          for (int c = 0; c < channels; ++c) {
            const double v = value(xr, c);
            a[c] += v;
            b[c] += v * v;
          }
        }
      },
      scratch.partials, sum, sum_sq, ex);
}

}  // namespace

void batchnorm_forward_train(const BatchNormShape& s, ConstElements x, ConstElements residual,
                             const float* gamma, const float* beta, Elements y, float* saved,
                             float* running_mean, float* running_var, float momentum,
                             float* workspace, const Exec& ex) {
  const Scratch scratch = carve(s, workspace);
  double* sum = scratch.sums;
  double* sum_sq = sum + s.c;
  with_typed(x, [&](const auto* xt) { sum_and_squares(s, xt, scratch, sum, sum_sq, ex); });
  const double m = sum_over_batch_replicas(s, scratch.sums, ex);
  float* mean = saved;
  float* inv_std = mean + s.c;
  float* scale = inv_std + s.c;
  float* shift = scale + s.c;
  for (int c = 0; c < s.c; ++c) {
    const double mu = sum[c] / m;
    const double var = std::max(0.0, sum_sq[c] / m - mu * mu);  // biased
    const double unbiased = m > 1 ? var * m / (m - 1) : var;
    mean[c] = static_cast<float>(mu);
    inv_std[c] = static_cast<float>(1.0 / std::sqrt(var + s.eps));
    running_mean[c] = (1 - momentum) * running_mean[c] + momentum * static_cast<float>(mu);
    running_var[c] = (1 - momentum) * running_var[c] + momentum * static_cast<float>(unbiased);
    scale[c] = gamma[c] * inv_std[c];
    shift[c] = beta[c] - mean[c] * scale[c];
  }
  scale_shift(s, x, residual, scale, shift, y, ex);
}

void batchnorm_forward_again(const BatchNormShape& s, ConstElements x, ConstElements residual,
                             const float* saved, Elements y, const Exec& ex) {
  const float* scale = saved + 2 * s.c;
  scale_shift(s, x, residual, scale, scale + s.c, y, ex);
}

void batchnorm_forward_eval(const BatchNormShape& s, ConstElements x, ConstElements residual,
                            const float* gamma, const float* beta, const float* running_mean,
                            const float* running_var, Elements y, float* workspace,
                            const Exec& ex) {
  float* scale = carve(s, workspace).per_channel;
  float* shift = scale + s.c;
  for (int c = 0; c < s.c; ++c) {
    scale[c] = gamma[c] / std::sqrt(running_var[c] + s.eps);
    shift[c] = beta[c] - running_mean[c] * scale[c];
  }
  scale_shift(s, x, residual, scale, shift, y, ex);
}

namespace {

// kAct: the fused activation, whose derivative the backward takes at the value it saw, rebuilt
// from x: y is not read, a third fewer bytes for the backward of BatchNorm + ReLU. kMaskFromY:
// the ReLU's mask from the output y instead, where a residual was added before the ReLU.
// kDyLikeY: dy's rows are as far apart as y's (all but an output held in a concatenation and
// rebuilt dense for the backward). One stride for both keeps the dx pass's loops as tight as they
// were: with two, the pass ran measurably longer at 16 channels.
// kGFirst: the sums pass also writes g into dresidual, which must hold it exactly (float32, or
// dy's type), and the dx pass reads g back from there instead of y and dy: seven streams over
// memory where eight were (BatchNorm + Add + ReLU, the bottlenecks' last layer).
template <Activation kAct, bool kMaskFromY, bool kDyLikeY, bool kGFirst, typename X, typename Y,
          typename R>
void backward(const BatchNormShape& s, const X* x, const Y* y, const Y* dy, const float* gamma,
              const float* saved, X* dx, R* dresidual, float* dgamma, float* dbeta,
              float* workspace, const Exec& ex) {
  const float* mean = saved;
  const float* inv_std = saved + s.c;
  const float* scale = saved + 2 * s.c;
  const float* shift = saved + 3 * s.c;
  // dy of channel c in the rows xr, yr and dyr of x, y and dy, through the fused activation.
  auto masked_dy = [&](const X* xr, const Y* yr, const Y* dyr, int c) {
    const float g = value(dyr, c);
    if constexpr (kAct == Activation::kNone) return g;
    if constexpr (kMaskFromY) return value(yr, c) > 0.0f ? g : 0.0f;
    return through_activation<kAct>(normalized(value(xr, c), scale[c], shift[c]), g);
  };
  // Without y, its row pointers stay null: no arithmetic on a null y.
  constexpr bool kReadsY = kMaskFromY;
  const int64_t y_row = s.y_row(), dy_row = kDyLikeY ? y_row : s.dy_row();
  auto masked_dy_at = [&](int64_t r, int c) {
    return masked_dy(x + r * s.c, kReadsY ? y + r * y_row : nullptr, dy + r * dy_row, c);
  };
  const bool prefetch = batchnorm_prefetch_pays();
  const Scratch scratch = carve(s, workspace);
  double* sum_dy = scratch.sums;
  double* sum_dy_xc = sum_dy + s.c;  // xc = x - mean
  sum_over_rows(
      s,
      [&](int64_t r0, int64_t r1, double* __restrict a, double* __restrict b) {
        const int channels = s.c;
        const int64_t y_step = kReadsY ? y_row : 0;
        int64_t r = r0;
        for (; r + 4 <= r1; r += 4) {
          const Y* y0 = kReadsY ? y + r * y_row : nullptr;
          const Y *y1 = y0 + y_step, *y2 = y1 + y_step, *y3 = y2 + y_step;
          const Y* dy0 = dy + r * dy_row;
          const Y *dy1 = dy0 + dy_row, *dy2 = dy1 + dy_row, *dy3 = dy2 + dy_row;
          const X* x0 = x + r * channels;
          const X *x1 = x0 + channels, *x2 = x1 + channels, *x3 = x2 + channels;
          if (prefetch) {
            prefetch_rows_ahead(x0, channels, 4, channels);
            if (kReadsY) prefetch_rows_ahead(y0, y_row, 4, channels);
            prefetch_rows_ahead(dy0, dy_row, 4, channels);
          }
          for (int c = 0; c < channels; ++c) {
            // Four rows' terms are summed in float (16 lanes a vector, twice double's), then
            // added in double: one double add where there were four, and the float sums of four
            // terms round far below what the double sums over the batch keep.
            const float g0 = masked_dy(x0, y0, dy0, c), g1 = masked_dy(x1, y1, dy1, c),
                        g2 = masked_dy(x2, y2, dy2, c), g3 = masked_dy(x3, y3, dy3, c);
            a[c] += double((g0 + g1) + (g2 + g3));
            b[c] += double((g0 * (value(x0, c) - mean[c]) + g1 * (value(x1, c) - mean[c])) +
                           (g2 * (value(x2, c) - mean[c]) + g3 * (value(x3, c) - mean[c])));
          }
          // In a loop of its own: stores inside the one above, which might alias its reads, kept
          // GCC from vectorizing it.
          if (kGFirst) put_rows(dresidual, channels, r, r + 4, channels, masked_dy_at);
        }
        if (kGFirst) put_rows(dresidual, channels, r, r1, channels, masked_dy_at);
        for (; r < r1; ++r) {
          const X* xr = x + r * channels;
          const Y* yr = kReadsY ? y + r * y_row : nullptr;
          for (int c = 0; c < channels; ++c) {
            const double g = masked_dy(xr, yr, dy + r * dy_row, c);
            a[c] += g;
            b[c] += g * (value(xr, c) - mean[c]);
          }
        }
      },
      scratch.partials, sum_dy, sum_dy_xc, ex);
  for (int c = 0; c < s.c; ++c) {
    dbeta[c] += static_cast<float>(sum_dy[c]);
    dgamma[c] += static_cast<float>(sum_dy_xc[c] * inv_std[c]);
  }
  if (dx == nullptr && (kGFirst || dresidual == nullptr)) return;
  // mean(dy) and mean(dy * xhat) per channel, kept for the dx pass: over every replica's batch
  // when the statistics were (the parameters' gradients above stay this replica's own, which the
  // all-reduce then averages).
  const double m = sum_over_batch_replicas(s, scratch.sums, ex);
  float* mean_dy = scratch.per_channel;
  float* mean_dy_xhat = mean_dy + s.c;
  for (int c = 0; c < s.c; ++c) {
    mean_dy[c] = static_cast<float>(sum_dy[c] / m);
    mean_dy_xhat[c] = static_cast<float>(sum_dy_xc[c] * inv_std[c] / m);
  }
  parallel_for(
      ex, s.m,
      [&](int64_t r0, int64_t r1) {
        // A block of rows at a time, both outputs of each before the next: g's inputs are read
        // twice, from L1.
        const int channels = s.c;
        const int64_t block = std::max<int64_t>(1, kRoundedChunk / channels);
        auto g_at = [&](int64_t r, int c) {
          if constexpr (kGFirst) return value(dresidual, r * channels + c);
          return masked_dy_at(r, c);
        };
        for (int64_t b0 = r0; b0 < r1; b0 += block) {
          const int64_t b1 = std::min(r1, b0 + block);
          if (prefetch) {
            prefetch_rows_ahead(x + b0 * channels, channels, b1 - b0, channels);
            if constexpr (kGFirst) {
              prefetch_rows_ahead(dresidual + b0 * channels, channels, b1 - b0, channels);
            } else {
              if (kReadsY) prefetch_rows_ahead(y + b0 * y_row, y_row, b1 - b0, channels);
              prefetch_rows_ahead(dy + b0 * dy_row, dy_row, b1 - b0, channels);
            }
          }
          if constexpr (!kGFirst) {
            if (dresidual != nullptr) put_rows(dresidual, channels, b0, b1, channels, g_at);
          }
          if (dx == nullptr) continue;
          put_rows(dx, channels, b0, b1, channels, [&](int64_t r, int c) {
            const float xhat = (value(x, r * channels + c) - mean[c]) * inv_std[c];
            const float g = g_at(r, c);
            return gamma[c] * inv_std[c] * (g - mean_dy[c] - xhat * mean_dy_xhat[c]);
          });
        }
      },
      kMinRowChunk);
}

}  // namespace

void batchnorm_backward(const BatchNormShape& s, ConstElements x, ConstElements y, ConstElements dy,
                        const float* gamma, const float* saved, Elements dx, Elements dresidual,
                        float* dgamma, float* dbeta, float* workspace, const Exec& ex) {
  XTRAIN_CHECK(
      (y.data == nullptr || dy.type == y.type) && (dx.data == nullptr || dx.type == x.type),
      "batchnorm_backward: a gradient's element type differs from its value's");
  with_typed(x, [&](const auto* xt) {
    using X = std::remove_const_t<std::remove_pointer_t<decltype(xt)>>;
    X* dxt = static_cast<X*>(dx.data);
    with_typed(dy, [&](const auto* dyt) {
      const auto* yt = static_cast<decltype(dyt)>(y.data);
      with_typed(dresidual, [&](auto* rt) {
        using Y = std::remove_const_t<std::remove_pointer_t<decltype(dyt)>>;
        using R = std::remove_pointer_t<decltype(rt)>;
        // g fits the residual's gradient exactly (as dx reads it back) when that is float32 or
        // dy's type.
        constexpr bool kHoldsG = std::is_same_v<R, float> || std::is_same_v<R, Y>;
        auto run = [&](auto act, auto mask_from_y, auto dy_like_y) {
          constexpr Activation kAct = decltype(act)::value;
          constexpr bool kMaskFromY = decltype(mask_from_y)::value;
          constexpr bool kDyLikeY = decltype(dy_like_y)::value;
          if constexpr (kMaskFromY && kHoldsG) {
            if (rt != nullptr) {
              backward<kAct, kMaskFromY, kDyLikeY, true>(s, xt, yt, dyt, gamma, saved, dxt, rt,
                                                         dgamma, dbeta, workspace, ex);
              return;
            }
          }
          backward<kAct, kMaskFromY, kDyLikeY, false>(s, xt, yt, dyt, gamma, saved, dxt, rt, dgamma,
                                                      dbeta, workspace, ex);
        };
        auto with_dy_rows = [&](auto act, auto mask_from_y) {
          if (s.dy_row() == s.y_row()) {
            run(act, mask_from_y, std::true_type{});
          } else {
            run(act, mask_from_y, std::false_type{});
          }
        };
        XTRAIN_CHECK(takes_residual(s.activation) || (y.data == nullptr && rt == nullptr),
                     "batchnorm_backward: the ReLU6, the Hardswish and the SiLU take their "
                     "derivative from x, without a residual");
        with_fused_activation(s.activation, [&](auto act) {
          if constexpr (decltype(act)::value == Activation::kReLU) {
            if (y.data != nullptr) return with_dy_rows(act, std::true_type{});
          }
          with_dy_rows(act, std::false_type{});
        });
      });
    });
  });
}

}  // namespace xtrain::kernels
