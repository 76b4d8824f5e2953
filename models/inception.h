// torchvision's Inception v3 (Szegedy et al. 2015) as test_train_imagenet.py builds it:
// aux_logits=False, transform_input=False, for 299x299 images. Every convolution is a
// BasicConv2d (Conv2d without bias, BatchNorm with eps 0.001, ReLU); the Mixed blocks run
// parallel branches (1x1, factorized 7x7 as 1x7 and 7x1, pooling) and concatenate them over
// channels. torchvision's state_dict names and initialization.
#pragma once

#include <memory>

#include "lib/graph/graph.h"

namespace xtrain {

std::shared_ptr<const Graph> inception_v3(int num_classes);

}  // namespace xtrain
