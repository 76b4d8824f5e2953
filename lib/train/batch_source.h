// BatchSource: where a core's batches come from, one epoch at a time.
#pragma once

#include <cstdint>

#include "lib/tensor/tensor.h"

namespace xtrain {

class BatchSource {
 public:
  virtual ~BatchSource() = default;
  // Batches in one epoch (per core).
  virtual int64_t batches_per_epoch() const = 0;
  // Writes the next batch: images [N, H, W, C] normalized floats and labels [N].
  virtual void next(TensorView images, int32_t* labels) = 0;
};

}  // namespace xtrain
