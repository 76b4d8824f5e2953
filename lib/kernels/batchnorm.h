// BatchNorm2d kernels. NHWC activations seen as rows: x, y, dx, dy are [M, C], M = N*H*W.
// Per-channel reductions use double accumulators over fixed chunks of rows whose sums are added in
// chunk order, so results do not depend on the thread count. No heap allocation per call (each
// calling thread keeps its scratch).
#pragma once

#include <cstdint>

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

struct BatchNormShape {
  int64_t m;
  int c;
  float eps;          // 1e-5 as in PyTorch
  bool relu = false;  // fused ReLU: y = max(batchnorm(x), 0) in the same pass
};

// Training forward with the biased batch variance var:
//   y = (x - mean) * inv_std * gamma + beta,  inv_std = 1 / sqrt(var + eps)
// saves mean and inv_std [C] for the backward, and updates the running statistics as PyTorch:
//   running_mean = (1 - momentum) * running_mean + momentum * mean
//   running_var  = (1 - momentum) * running_var  + momentum * var * M / (M - 1)   (unbiased)
void batchnorm_forward_train(const BatchNormShape& s, const float* x, const float* gamma,
                             const float* beta, float* y, float* mean, float* inv_std,
                             float* running_mean, float* running_var, float momentum,
                             const Exec& ex);

// Evaluation forward: y = (x - running_mean) / sqrt(running_var + eps) * gamma + beta.
void batchnorm_forward_eval(const BatchNormShape& s, const float* x, const float* gamma,
                            const float* beta, const float* running_mean, const float* running_var,
                            float* y, const Exec& ex);

// With xhat = (x - mean) * inv_std, per channel:
//   dbeta += sum(dy)    dgamma += sum(dy * xhat)
//   dx = gamma * inv_std * (dy - mean(dy) - xhat * mean(dy * xhat))
// where, with a fused ReLU, dy is first masked by the forward's output: y > 0 ? dy : 0 (y is
// read only then). dx is overwritten (it may be skipped: null); dgamma and dbeta accumulate.
void batchnorm_backward(const BatchNormShape& s, const float* x, const float* y, const float* dy,
                        const float* gamma, const float* mean, const float* inv_std, float* dx,
                        float* dgamma, float* dbeta, const Exec& ex);

}  // namespace xtrain::kernels
