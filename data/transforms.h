// transforms: a decoded RGB image to the network's input, [size, size, 3] floats (NHWC, RGB)
// normalized with ImageNet's mean and std, as torchvision's composed transforms give it:
//   imagenet, train: RandomResizedCrop(size) (bilinear), RandomHorizontalFlip(0.5), Normalize
//   imagenet, test:  Resize(round(size / 0.875)), CenterCrop(size), Normalize
//   cifar, train:    RandomCrop(size, padding=4) (zeros), RandomHorizontalFlip(0.5), Normalize
//   cifar, test:     Normalize
// The cifar recipe is for images already size x size (32px-class data such as CIFAR or
// Fashion-MNIST); other images are first resized (shorter side) and center-cropped to that.
// Not here: decoding (decode_image.h), the box geometry (crop_boxes.h), resampling.
#pragma once

#include <functional>
#include <opencv2/core.hpp>
#include <string>

#include "data/rng.h"

namespace xtrain {

// Writes `rgb` (8-bit RGB) transformed into `out` ([size, size, 3] floats), drawing any random
// choice from `rng` in torchvision's order.
using Transform = std::function<void(const cv::Mat& rgb, Rng& rng, float* out)>;

// `augment` is "imagenet" or "cifar"; `train` picks the training or the test transform.
Transform make_transform(const std::string& augment, bool train, int size);

// ToTensor + Normalize of an 8-bit RGB image into out ([rows, cols, 3]), mirrored left-right
// when `flip`.
void normalize_image(const cv::Mat& rgb, bool flip, float* out);

}  // namespace xtrain
