// ParamTensor: one parameter tensor of a replica's flat parameter buffer as an optimizer sees it:
// where it lies, its weight decay (torchvision's parameter groups give norm layers, biases and
// embeddings their own) and whether layer-wise adaptation (LARS, LAMB) scales its step. The
// tensors of a buffer lie end to end and cover it.
// Not here: which tensor is a norm layer's or a bias (lib/train/param_groups.h), the updates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "lib/parallel/exec.h"

namespace xtrain {

struct ParamTensor {
  size_t offset = 0;  // into the flat buffer
  size_t size = 0;    // floats
  float weight_decay = 0.0f;
  bool adapted = true;  // false: LARS and LAMB step it unscaled (BatchNorm's and biases)
};

// The floats the tensors cover; throws unless they lie end to end from offset 0.
size_t covered_floats(const std::vector<ParamTensor>& tensors);

// Calls fn(begin, end, i) for the parts [begin, end) of the flat buffer that each tensor i holds,
// over the whole buffer (tensors end to end, as covered_floats checks), in contiguous chunks split
// over ex's threads: an element-wise update at each tensor's own settings. Which thread takes a
// part never changes its result.
void for_each_tensor_part(const Exec& ex, const std::vector<ParamTensor>& tensors,
                          const std::function<void(int64_t, int64_t, size_t)>& fn);

// Calls fn(i) for every tensor i, whole tensors split over ex's threads: a per-tensor reduction
// (a norm) whose order within the tensor is fixed, so its result is the same on any thread count.
void for_each_tensor(const Exec& ex, const std::vector<ParamTensor>& tensors,
                     const std::function<void(size_t)>& fn);

// The L2 norm of n floats, summed in double in a fixed order.
double l2_norm(const float* values, size_t n);

}  // namespace xtrain
