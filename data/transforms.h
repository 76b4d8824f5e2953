// transforms: a decoded RGB image to the network's input, [size, size, 3] floats (NHWC, RGB)
// normalized with ImageNet's mean and std, as torchvision's composed transforms give it:
//   imagenet, train: RandomResizedCrop(size), RandomHorizontalFlip(0.5), Normalize
//   imagenet, test:  Resize(resize side, default round(size / 0.875)), CenterCrop(size), Normalize
//   cifar, train:    RandomCrop(size, padding=4) (zeros), RandomHorizontalFlip(0.5), Normalize
//   cifar, test:     Normalize
// and, in training, the additions of torchvision's reference recipe (ClassificationPresetTrain)
// that TrainExtras asks for: an automatic augmentation policy (TrivialAugmentWide, RandAugment,
// AugMix or AutoAugment) after the flip, RandomErasing after Normalize.
// in two steps: a Transform gives the 8-bit pixels that ToTensor would read, and
// normalize_pixels does ToTensor + Normalize. A loader holds the pixels (a quarter of the floats'
// bytes) until its consumer takes the batch.
// The cifar recipe is for images already size x size (32px-class data such as CIFAR or
// Fashion-MNIST); other images are first resized (shorter side) and center-cropped to that.
// Every resize interpolates as Resampling says: bilinear by default, as torchvision's reference
// script.
// Not here: decoding (decode_image.h), the box geometry (crop_boxes.h), resampling, the
// augmentations' pixels (trivial_augment.h, rand_augment.h, augmix.h, auto_augment.h,
// random_erasing.h).
#pragma once

#include <functional>
#include <opencv2/core.hpp>
#include <string>

#include "data/augmix.h"
#include "data/rand_augment.h"
#include "data/random_erasing.h"
#include "data/resize_image.h"
#include "data/rng.h"
#include "lib/tensor/elements.h"

namespace xtrain {

// Writes `rgb` (8-bit RGB) transformed into `out` ([size, size, 3] 8-bit RGB, before ToTensor),
// drawing any random choice from `rng` in torchvision's order. Returns the box RandomErasing
// zeroes once the pixels are normalized (empty for none): random_erasing.h says why it waits.
using Transform = std::function<EraseBox(const cv::Mat& rgb, Rng& rng, uint8_t* out)>;

// The training transform's optional steps. Without them it draws and gives what it always did.
struct TrainExtras {
  // The policy after the flip: "ta_wide" (TrivialAugmentWide), "ra" (RandAugment), "augmix"
  // (AugMix), "imagenet" (AutoAugment's IMAGENET policy); "": none.
  std::string auto_augment;
  double random_erase = 0;                          // RandomErasing's probability, in [0, 1]
  int ra_magnitude = kRandAugmentDefaultMagnitude;  // RandAugment's bin, 0 to 30
  int augmix_severity = kAugMixDefaultSeverity;     // AugMix's severity, 1 to 10
};

// How the transforms resample, beyond the output side: torchvision's reference script's
// --interpolation and --val-resize-size.
struct Resampling {
  Interpolation interpolation = Interpolation::kBilinear;
  // The shorter side the imagenet test transform resizes to before its center crop, at least its
  // size; 0: round(size / 0.875).
  int test_resize_side = 0;
};

// `augment` is "imagenet" or "cifar"; `train` picks the training or the test transform, which
// takes no extras.
Transform make_transform(const std::string& augment, bool train, int size,
                         const TrainExtras& extras = {}, const Resampling& resampling = {});

// The pixels of an 8-bit RGB image into out ([rows, cols, 3]), mirrored left-right when `flip`.
void copy_pixels(const cv::Mat& rgb, bool flip, uint8_t* out);

// ToTensor + Normalize of n bytes of RGB pixels ([..., 3]): out[i] = (pixels[i] / 255 - mean[c])
// / std[c] for channel c = i % 3, computed in float as torchvision does, and rounded where out is
// bfloat16.
void normalize_pixels(const uint8_t* pixels, int64_t n, Elements out);

}  // namespace xtrain
