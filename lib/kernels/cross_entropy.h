// CrossEntropyLoss over logits [N, K] and integer labels [N], mean over the batch, with optional
// label smoothing eps as PyTorch: the target is q = (1 - eps) * onehot(label) + eps / K and
//   loss = -(1/N) * sum_n sum_k q[n, k] * log_softmax(logits[n])[k]
// The log-softmax subtracts each row's maximum first, so large logits never overflow.
#pragma once

#include <cstdint>

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

struct CrossEntropyShape {
  int n, classes;
  float label_smoothing;
};

// Returns the loss; saves probs = softmax(logits) [N, K] for the backward.
// Labels outside [0, K) throw xtrain::Error.
float cross_entropy_forward(const CrossEntropyShape& s, const float* logits, const int32_t* labels,
                            float* probs, const Exec& ex);

// dlogits = (probs - q) / N. dlogits is overwritten.
void cross_entropy_backward(const CrossEntropyShape& s, const float* probs, const int32_t* labels,
                            float* dlogits, const Exec& ex);

}  // namespace xtrain::kernels
