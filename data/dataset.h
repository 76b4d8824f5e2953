// Dataset: samples by index, each written transformed into the caller's buffer; what a Loader
// reads from. UnreadableImage is the error of one bad file, which the Loader skips or, under
// --strict, lets end the run.
// Not here: which samples to read in which order (DistributedSampler), batching (Loader).
#pragma once

#include <cstdint>

#include "data/random_erasing.h"
#include "data/rng.h"
#include "lib/base/check.h"

namespace xtrain {

// A file that cannot be read or decoded; what() names the file and the problem.
class UnreadableImage : public Error {
 public:
  using Error::Error;
};

class Dataset {
 public:
  virtual ~Dataset() = default;

  virtual int64_t size() const = 0;
  // Bytes of one transformed image ([H, W, 3] 8-bit RGB, before ToTensor + Normalize:
  // normalize_pixels in transforms.h).
  virtual int64_t image_bytes() const = 0;
  // Writes sample `index` transformed into `image` and its label into *label, drawing any random
  // augmentation from `rng`, and returns the box to zero once the image is normalized (empty for
  // none: random_erasing.h). Throws UnreadableImage when its file cannot be used. Safe to call
  // from several threads at once.
  virtual EraseBox get(int64_t index, Rng& rng, uint8_t* image, int32_t* label) const = 0;
};

}  // namespace xtrain
