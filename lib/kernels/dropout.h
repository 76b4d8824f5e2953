// Dropout kernels over n contiguous floats, with a mask that is a pure function of a key and the
// element's flat index: nothing is saved for the backward, which regenerates the mask, and no
// result depends on thread counts. Keys come from (run seed, global step, replica ordinal, layer
// name), so reruns and resumed runs draw the same masks. A golden test in Python reproduces these
// functions bit for bit (tests/kernels/dropout_kernel_test.cpp pins a few values): change them
// only together with it.
//   step key   dropout_step_key(seed, step, ordinal)
//                = fmix32(fmix32(uint32(seed) ^ fmix32(uint32(step))) ^ uint32(ordinal))
//   layer key  fmix32(step_key ^ fnv1a32(layer name))
//   keep i     fmix32(layer_key + uint32(i) * 0x9E3779B1) >= threshold,  threshold = p * 2^32
//   y[i]       x[i] * (keep i ? 1 / (1 - p) : 0)   as torch.nn.Dropout's x * mask (NaN stays NaN)
#pragma once

#include <cstdint>
#include <string_view>

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

// murmur3's 32-bit finalizer: every input bit flips each output bit with probability ~1/2.
constexpr uint32_t fmix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

// FNV-1a, 32 bits, of the bytes of `s`.
constexpr uint32_t fnv1a32(std::string_view s) {
  uint32_t h = 2166136261u;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return h;
}

// The key of one training forward of one replica: `global_step` is the optimizer step it belongs
// to (counted over the whole run, so a resumed run goes on with the same keys), `ordinal` the
// replica's place among all replicas (each draws its own masks, as each XLA device does).
uint32_t dropout_step_key(uint64_t seed, int64_t global_step, int ordinal);

// The key of the layer named `name` in the forward keyed `step_key`: layers draw different masks.
constexpr uint32_t dropout_layer_key(uint32_t step_key, std::string_view name) {
  return fmix32(step_key ^ fnv1a32(name));
}

// The threshold of drop probability p: hashes below p * 2^32 are dropped (p = 0: none).
inline uint32_t drop_threshold(double p) { return static_cast<uint32_t>(p * 4294967296.0); }

// Whether index i is kept under key: the hash of its index, spread by 2^32 / phi, at or above
// the threshold. Dropout's elements and StochasticDepth's samples (stochastic_depth.h) alike. The
// index wraps at 2^32, as the Python twin's uint32(i) does.
inline bool hash_keeps(uint32_t key, uint32_t threshold, int64_t i) {
  return fmix32(key + static_cast<uint32_t>(i) * 0x9E3779B1u) >= threshold;
}

// p = probability of dropping an element, 0 <= p < 1; key = dropout_layer_key(...).
struct DropoutShape {
  int64_t n;
  float p;
  uint32_t key;
};

// Whether element i is kept.
bool dropout_keeps(const DropoutShape& s, int64_t i);

// y = x * mask / (1 - p). y may alias x.
void dropout_forward(const DropoutShape& s, const float* x, float* y, const Exec& ex);

// dx = dy * mask / (1 - p), the mask regenerated from s.key. dx may alias dy.
void dropout_backward(const DropoutShape& s, const float* dy, float* dx, const Exec& ex);

}  // namespace xtrain::kernels
