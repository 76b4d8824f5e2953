// augment_magnitudes: the magnitude tables of torchvision's automatic augmentations, as their
// _augmentation_space methods build them: float32 torch.linspace ranges (some scaled by the
// image's size) and Posterize's rounded bit counts.
//   TrivialAugmentWide: shear and the enhancements 0..0.99, translate 0..32, rotate 0..135,
//     Posterize 8 - round(bin / ((bins - 1) / 6)) bits
//   RandAugment and AutoAugment: shear 0..0.3, translate 0..150/331 of the side, rotate 0..30,
//     the enhancements 0..0.9, Posterize 8 - round(bin / ((bins - 1) / 4)) bits
//   AugMix: as RandAugment, but translate 0..1/3 of the side and Posterize 4 - ... bits
// Solarize's threshold runs from 255 down to 0 in every space.
// Not here: which bin a policy draws (trivial_augment.h, rand_augment.h, auto_augment.h,
// augmix.h), the operations' pixels (augment_ops.h).
#pragma once

#include "data/augment_ops.h"

namespace xtrain {

enum class AugmentSpace { kTrivialAugmentWide, kRandAugment, kAugMix };

// Value i of torch.linspace(start, end, steps) in float32, as ATen's CPU kernel computes it with
// 8-lane vectors (AVX2, its default): values in pairs of vectors of 8 from each half's fused
// multiply-add base, plus each lane times the step; the tail one value at a time, the first half
// from `start`, the second back from `end`. So a few values differ in their last bit from
// start + step * i, and the tables must be built the same way to be torch's.
float torch_linspace(float start, float end, int steps, int i);

// Whether `op` has a magnitude table (Identity, AutoContrast, Equalize and Invert do not), and a
// random sign. The same in every space.
bool has_magnitude_bins(AugmentOp op);
bool has_signed_magnitude(AugmentOp op);

// The unsigned magnitude of bin `bin` (0 to num_bins - 1) of `op` in `space`, for an image of
// height x width pixels (translate's range scales with the side it shifts along; the
// TrivialAugmentWide space ignores the size). 0 for the operations without a table.
double augment_magnitude(AugmentSpace space, AugmentOp op, int bin, int num_bins, int height,
                         int width);

}  // namespace xtrain
