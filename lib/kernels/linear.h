// Linear kernels, PyTorch layout: x [N, in], weight [out, in], bias [out], y [N, out]. The
// products are gemm()'s in `precision`; the bias sums stay float32.
#pragma once

#include "lib/parallel/exec.h"
#include "lib/tensor/precision.h"

namespace xtrain::kernels {

struct LinearShape {
  int n, in, out;
};

// y = x * weight^T + bias (bias may be null). y is overwritten.
void linear_forward(const LinearShape& s, const float* x, const float* weight, const float* bias,
                    float* y, const Exec& ex, Precision precision = Precision::kFloat32);

// dx = dy * weight. dx is overwritten.
void linear_backward_data(const LinearShape& s, const float* dy, const float* weight, float* dx,
                          const Exec& ex, Precision precision = Precision::kFloat32);

// dweight += dy^T * x; dbias += column sums of dy (dbias may be null). Accumulates.
void linear_backward_weight(const LinearShape& s, const float* x, const float* dy, float* dweight,
                            float* dbias, const Exec& ex,
                            Precision precision = Precision::kFloat32);

}  // namespace xtrain::kernels
