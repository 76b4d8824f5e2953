// StochasticDepth kernels in torchvision's "row" mode: each sample of a batch (its row of
// row_elements contiguous values, x viewed as [N, row_elements]) is dropped whole with
// probability p, and the kept ones are scaled by 1 / (1 - p). The mask is Dropout's hash
// (dropout.h) over the sample's index in the step's whole batch (first_sample + n), under the
// layer's key in the step (dropout_layer_key of the step's key for draws per sample, which every
// core shares, and the layer's name): a sample draws the same whichever core holds it, nothing is
// saved for the backward, which draws it again, and no result depends on thread counts.
// scripts/make_golden.py replays these masks in PyTorch: change them only together with it.
//   keep n   hash_keeps(key, drop_threshold(p), first_sample + n)
//   y[n, j]  x[n, j] * (keep n ? 1 / (1 - p) : 0)   torch's input * noise (NaN stays NaN)
// x, y, dy and dx may be float32 or bfloat16 (the product is float32, rounded once where stored).
// y may alias x, and dx dy.
// Not here: where the step key comes from (nn/layer.h's LayerCall::step_key).
#pragma once

#include <cstdint>

#include "lib/parallel/exec.h"
#include "lib/tensor/elements.h"

namespace xtrain::kernels {

// p = probability of dropping a sample, 0 <= p < 1, in double as torchvision computes it per
// block; key = dropout_layer_key(...).
struct StochasticDepthShape {
  int64_t samples;
  int64_t row_elements;
  double p;
  uint32_t key;
  int64_t first_sample = 0;  // the index of sample 0 in the step's whole batch
};

// Whether sample n (of these samples, from 0) is kept.
bool stochastic_depth_keeps(const StochasticDepthShape& s, int64_t n);

// What a kept sample is multiplied by: torch's noise.div_(1 - p), a float32 division by
// 1 - p rounded to float32.
float stochastic_depth_scale(double p);

// y = x * mask[n] / (1 - p).
void stochastic_depth_forward(const StochasticDepthShape& s, ConstElements x, Elements y,
                              const Exec& ex);

// dx = dy * mask[n] / (1 - p), the mask drawn again from s.key. dx is overwritten.
void stochastic_depth_backward(const StochasticDepthShape& s, ConstElements dy, Elements dx,
                               const Exec& ex);

}  // namespace xtrain::kernels
