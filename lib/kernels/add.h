// Element-wise sums over n contiguous floats: the residual add and gradient accumulation.
#pragma once

#include <cstdint>

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

// y = a + b. y may alias a or b.
void add_forward(int64_t n, const float* a, const float* b, float* y, const Exec& ex);

// y += x
void accumulate(int64_t n, const float* x, float* y, const Exec& ex);

}  // namespace xtrain::kernels
