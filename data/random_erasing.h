// random_erasing: torchvision's RandomErasing(p, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0),
// where its reference training script applies it: after ToTensor + Normalize, so the erased box
// holds 0 in the normalized floats. xtrain's transforms end at 8-bit pixels, and no 8-bit value
// normalizes to 0 (it would be the channel's mean, 123.675 for red), so the erasing is split in
// two: a Transform draws the box from the sample's Rng with its other augmentations and hands it
// on beside the pixels, and the loader zeroes it in the floats normalize_pixels writes. The
// result is that of erasing after Normalize, to the bit.
// Not here: the normalization (transforms.h), carrying the box to the batch (batch_ring.h).
#pragma once

#include "data/rng.h"
#include "lib/tensor/elements.h"

namespace xtrain {

// A box to erase in an image image_width pixels wide; nothing when empty.
struct EraseBox {
  int top = 0, left = 0, height = 0, width = 0;
  int image_width = 0;
  bool empty() const { return height <= 0 || width <= 0; }
};

// RandomErasing's draws for a height x width image: with probability p, up to 10 tries of an
// area fraction (uniform in [0.02, 0.33)) and an aspect ratio (log-uniform in [0.3, 3.3)) whose
// box, rounded half to even, fits strictly inside; then its position, uniform. Empty when the
// coin says no (and then nothing more is drawn) or no try fits, as torchvision leaves the image
// unchanged then.
EraseBox random_erasing_box(int height, int width, double p, Rng& rng);

// Zeroes `box` in one normalized image ([H, box.image_width, 3] elements), as F.erase with
// value 0 does.
void erase_box(const EraseBox& box, Elements image);

}  // namespace xtrain
