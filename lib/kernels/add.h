// Element-wise sums over n contiguous floats: the residual add and gradient accumulation.
#pragma once

#include <cstdint>

#include "lib/parallel/exec.h"
#include "lib/tensor/elements.h"

namespace xtrain::kernels {

// y = a + b. y may alias a or b.
void add_forward(int64_t n, const float* a, const float* b, float* y, const Exec& ex);

// y += x, x and y of one element type: a bfloat16 plan sums the bfloat16 gradients of a value
// read twice (a residual) in float32, each sum rounded as it is stored.
void accumulate(int64_t n, ConstElements x, Elements y, const Exec& ex);

}  // namespace xtrain::kernels
