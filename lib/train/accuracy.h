// Top-k accuracy counting over logits [N, K]. Ties rank the lower class index first, as
// torch.max and torch.topk do, so an all-equal output predicts class 0. A row with a NaN or an
// infinity is never correct: compared with NaN nothing is larger, so it would otherwise rank
// every label first (a diverged model scoring 100%).
#pragma once

#include <cstdint>

#include "lib/graph/param_store.h"

namespace xtrain {

// True when none of values[0, n) is NaN or infinite.
bool all_finite(const float* values, int64_t n);

// True when every parameter and buffer (BatchNorm's running statistics) is finite. A model
// without is diverged even where its outputs stay finite (an infinite running_var scales its
// channels to 0).
bool weights_finite(ParamStore& store);

// How many rows have only finite logits and their label among the k highest.
int64_t count_top_k_correct(const float* logits, const int32_t* labels, int n, int classes, int k);

// How many rows have a non-finite logit.
int64_t count_nonfinite_rows(const float* logits, int n, int classes);

}  // namespace xtrain
