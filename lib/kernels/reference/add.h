// Plain-loop twin of lib/kernels/add.h.
#pragma once

#include <cstdint>

namespace xtrain::kernels::reference {

void add_forward(int64_t n, const float* a, const float* b, float* y);
void accumulate(int64_t n, const float* x, float* y);

}  // namespace xtrain::kernels::reference
