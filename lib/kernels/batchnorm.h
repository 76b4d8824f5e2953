// BatchNorm2d kernels. NHWC activations seen as rows: x, y, dx, dy and the optional residual and
// dresidual are [M, C], M = N*H*W; the rows of y and of dy may be wider (y_stride, dy_stride), so
// that the channels of y are columns of a wider output: a BatchNorm over a concatenation, one part
// at a time, or an output that a concatenation holds in place (whose rebuilt copy for the backward
// is dense while its gradient stays in the concatenation's).
// x, the residual and y may be float32 or bfloat16 (Elements: a bfloat16 plan stores the
// convolution outputs BatchNorm reads, and the outputs convolutions read, so; y is rounded as it
// is stored), and so may their gradients dy, dx and dresidual; every per-channel value is float32,
// and so is all arithmetic.
// Per-channel reductions use double accumulators over fixed chunks of rows whose sums are added in
// chunk order, so results do not depend on the thread count. No heap allocation per call: the
// caller hands each kernel batchnorm_workspace_floats() of scratch (its share of a plan's arena).
// Under ex.batch_replicas (--sync_bn) the training passes take the batch statistics, and the
// backward its sums for dx, over every replica's rows (AllReduce::sum_in_order of the per-channel
// double sums: the same bytes for every placement); each replica's dgamma and dbeta stay its own.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lib/kernels/activations.h"
#include "lib/parallel/exec.h"
#include "lib/tensor/elements.h"

namespace xtrain::kernels {

// The activation fused after the normalization (and the residual), in the same pass, one of
// activations.h's: kNone, kReLU, kReLU6, kHardswish or kSiLU. Only the ReLU (or nothing) follows
// an added residual: y = max(batchnorm(x) + residual, 0); the others are y = act(batchnorm(x)).

struct BatchNormShape {
  int64_t m;
  int c;
  float eps;  // 1e-5 as in PyTorch
  Activation activation = Activation::kNone;
  int64_t y_stride = 0;   // elements between the rows of y; 0: c
  int64_t dy_stride = 0;  // elements between the rows of dy; 0: c

  int64_t y_row() const { return y_stride > 0 ? y_stride : c; }
  int64_t dy_row() const { return dy_stride > 0 ? dy_stride : c; }
};

// The per-channel values a training forward saves for its backward: saved is [4, C], rows
// mean, inv_std, scale and shift (see batchnorm_forward_train).
constexpr int kBatchNormSavedRows = 4;

// The scratch floats of the training forward, the evaluation forward and the backward: the
// reductions' per-chunk partial sums (which grow with M) and a few values per channel.
size_t batchnorm_workspace_floats(const BatchNormShape& s);

// Training forward with the biased batch variance var:
//   y = act((x - mean) * inv_std * gamma + beta + residual),  inv_std = 1 / sqrt(var + eps)
// computed as y = act(x * scale + shift + residual), scale = gamma * inv_std and
// shift = beta - mean * scale, where act is the fused activation (or nothing), and residual
// [M, C] may be null (nothing added). Saves mean, inv_std, scale and shift in saved
// [4, C], and updates the running statistics as PyTorch:
//   running_mean = (1 - momentum) * running_mean + momentum * mean
//   running_var  = (1 - momentum) * running_var  + momentum * var * M / (M - 1)   (unbiased)
void batchnorm_forward_train(const BatchNormShape& s, ConstElements x, ConstElements residual,
                             const float* gamma, const float* beta, Elements y, float* saved,
                             float* running_mean, float* running_var, float momentum,
                             float* workspace, const Exec& ex);

// y exactly as batchnorm_forward_train wrote it, from the same x and residual and what it saved:
// a training plan rebuilds the output this way for the backward instead of keeping it.
void batchnorm_forward_again(const BatchNormShape& s, ConstElements x, ConstElements residual,
                             const float* saved, Elements y, const Exec& ex);

// Evaluation forward: y = act((x - running_mean) / sqrt(running_var + eps) * gamma + beta +
// residual), residual as in training.
void batchnorm_forward_eval(const BatchNormShape& s, ConstElements x, ConstElements residual,
                            const float* gamma, const float* beta, const float* running_mean,
                            const float* running_var, Elements y, float* workspace, const Exec& ex);

// With xhat = (x - mean) * inv_std and g = dy through the fused activation's derivative (the ReLU's
// mask, zero where it clamped its output to 0; the ReLU6's, also where it clamped it to 6, as
// torch's hardtanh_backward passes the gradient only strictly between; the others' slopes at the
// value they saw: through_activation in activations.h), per channel:
//   dbeta += sum(g)    dgamma += sum(g * xhat)
//   dx = gamma * inv_std * (g - mean(g) - xhat * mean(g * xhat))    dresidual = g
// dx and dresidual are overwritten (either may be skipped: null); dgamma and dbeta accumulate.
// dx may be dy itself (one buffer, one element type, dense rows): every element of dy is read
// before dx's is written.
// The ReLU's mask comes from y (y > 0 ? dy : 0) when y is given, which a ReLU after an added
// residual needs; without y (null) from x and saved's scale and shift (v = x * scale + shift, the
// value the forward's activation saw), so a BatchNorm + ReLU backward does not read its output.
// The ReLU6, the Hardswish and the SiLU take it from x only (y null): a bfloat16 y rounds some v
// just below 6 up to 6, and the Hardswish's and the SiLU's outputs do not give back their input.
// A gradient has its value's element type (dy y's, dx x's; dresidual the residual's, of either
// type): a bfloat16 plan keeps the gradients of the values it stores in bfloat16 so too.
void batchnorm_backward(const BatchNormShape& s, ConstElements x, ConstElements y, ConstElements dy,
                        const float* gamma, const float* saved, Elements dx, Elements dresidual,
                        float* dgamma, float* dbeta, float* workspace, const Exec& ex);

}  // namespace xtrain::kernels
