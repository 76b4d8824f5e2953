// Plain-loop twin of lib/kernels/batchnorm.h: two-pass statistics in double, textbook formulas.
#pragma once

#include "lib/kernels/batchnorm.h"

namespace xtrain::kernels::reference {

void batchnorm_forward_train(const BatchNormShape& s, const float* x, const float* residual,
                             const float* gamma, const float* beta, float* y, float* saved,
                             float* running_mean, float* running_var, float momentum);
void batchnorm_forward_again(const BatchNormShape& s, const float* x, const float* residual,
                             const float* saved, float* y);
void batchnorm_forward_eval(const BatchNormShape& s, const float* x, const float* residual,
                            const float* gamma, const float* beta, const float* running_mean,
                            const float* running_var, float* y);
void batchnorm_backward(const BatchNormShape& s, const float* x, const float* y, const float* dy,
                        const float* gamma, const float* saved, float* dx, float* dresidual,
                        float* dgamma, float* dbeta);

}  // namespace xtrain::kernels::reference
