// Plain-loop twin of lib/kernels/cross_entropy.h: the textbook formulas with an explicit
// smoothed (and mixed) target q, in double.
#pragma once

#include "lib/kernels/cross_entropy.h"

namespace xtrain::kernels::reference {

float cross_entropy_forward(const CrossEntropyShape& s, const float* logits, const int32_t* labels,
                            float* probs);
void cross_entropy_backward(const CrossEntropyShape& s, const float* probs, const int32_t* labels,
                            float* dlogits);

}  // namespace xtrain::kernels::reference
