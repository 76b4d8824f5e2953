// CrossEntropyLoss over logits [N, K] and integer labels [N], mean over the batch, with optional
// label smoothing eps as PyTorch: the target is q = (1 - eps) * t + eps / K and
//   loss = -(1/N) * sum_n sum_k q[n, k] * log_softmax(logits[n])[k]
// where t = onehot(label), or, for a batch that mixup or CutMix mixed with itself rolled by one
// sample (torchvision's RandomMixup and RandomCutmix), the soft target
//   t[n] = mix * onehot(labels[n]) + (1 - mix) * onehot(labels[n - 1])   (n - 1 of 0: N - 1)
// The log-softmax subtracts each row's maximum first, so large logits never overflow.
#pragma once

#include <cstdint>

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

struct CrossEntropyShape {
  int n, classes;
  float label_smoothing;
  float mix = 1.0f;  // the weight of each sample's own label; 1: hard labels
};

// Returns the loss; saves probs = softmax(logits) [N, K] for the backward.
// Labels outside [0, K) throw xtrain::Error.
float cross_entropy_forward(const CrossEntropyShape& s, const float* logits, const int32_t* labels,
                            float* probs, const Exec& ex);

// dlogits = (probs - q) / N. dlogits is overwritten.
void cross_entropy_backward(const CrossEntropyShape& s, const float* probs, const int32_t* labels,
                            float* dlogits, const Exec& ex);

}  // namespace xtrain::kernels
