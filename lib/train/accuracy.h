// Top-k accuracy counting over logits [N, K]. Ties rank the lower class index first, as
// torch.max and torch.topk do, so an all-equal output predicts class 0.
#pragma once

#include <cstdint>

namespace xtrain {

// How many rows have their label among the k highest logits.
int64_t count_top_k_correct(const float* logits, const int32_t* labels, int n, int classes, int k);

}  // namespace xtrain
