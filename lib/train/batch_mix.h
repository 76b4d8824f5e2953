// Batch mixing as torchvision's reference script does it (its RandomMixup and RandomCutmix at
// p = 1, one of the two chosen at even odds per batch when both are on): each image of a core's
// batch mixed with the previous one (the batch rolled by one sample; the first takes the last),
// and its label's weight for the loss (Plan::set_label_mix):
//   mixup:  image = lambda * image + (1 - lambda) * previous, lambda ~ Beta(alpha, alpha)
//   CutMix: a box of the previous image pasted in, centred uniformly, of sides sqrt(1 - lambda)
//           times the image's, clipped to it; lambda then becomes the area left.
// Draws come from (seed, optimizer step, core), so runs and resumes repeat them.
// Not here: the loss over the mixed labels (kernels/cross_entropy.h).
#pragma once

#include <cstdint>

#include "data/rng.h"
#include "lib/tensor/elements.h"

namespace xtrain {

struct BatchMixOptions {
  float mixup_alpha = 0.0f;   // --mixup_alpha; 0: off
  float cutmix_alpha = 0.0f;  // --cutmix_alpha; 0: off
  bool enabled() const { return mixup_alpha > 0.0f || cutmix_alpha > 0.0f; }
};

struct BatchMix {
  float lambda = 1.0f;  // the weight of each image's own pixels and label
  bool cutmix = false;
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // CutMix's box: rows [y0, y1), columns [x0, x1)
};

// One batch's draws, for images of height x width pixels.
BatchMix draw_batch_mix(const BatchMixOptions& options, Rng& rng, int height, int width);
// CutMix's box and lambda for a drawn lambda and box centre (cx, cy).
BatchMix cutmix_at(double lambda, int cx, int cy, int height, int width);

// Mixes the n images [height, width, channels] of `images` (float32, or bfloat16 rounded from
// the float32 mix) in place.
void mix_batch(const BatchMix& mix, Elements images, int n, int height, int width, int channels);

}  // namespace xtrain
