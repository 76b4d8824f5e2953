// Element-wise sums over n contiguous floats: the residual add (alone or with the ReLU after it)
// and gradient accumulation.
#pragma once

#include <cstdint>

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

// y = a + b. y may alias a or b.
void add_forward(int64_t n, const float* a, const float* b, float* y, const Exec& ex);

// y = max(a + b, 0): a residual add fused with the ReLU after it (one pass instead of two).
// y may alias a or b.
void add_relu_forward(int64_t n, const float* a, const float* b, float* y, const Exec& ex);

// da = db = (y > 0 ? dy : 0), from the fused forward's output y; either may be null.
void add_relu_backward(int64_t n, const float* y, const float* dy, float* da, float* db,
                       const Exec& ex);

// y += x
void accumulate(int64_t n, const float* x, float* y, const Exec& ex);

}  // namespace xtrain::kernels
