// The model zoo by name, as --model takes it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lib/graph/graph.h"

namespace xtrain {

const std::vector<std::string>& model_names();

// The image side the model is trained at when --image_size is not given: 299 for inception_v3
// (test_train_imagenet.py's img_dim), the crop size of torchvision's default weights for the
// EfficientNets (240 for efficientnet_b1 up to 600 for b7, 384 for efficientnet_v2_s, 480 for
// v2_m and v2_l), 224 for the others.
int default_image_size(const std::string& model);

// Throws xtrain::Error naming `flag` (the flag that set the size), the model's smallest input side
// and the layer that cannot take `image_size` (AlexNet below 63, Inception v3 below 75), before
// any memory is taken.
void check_image_size(const std::string& model, const Graph& graph, int image_size,
                      const std::string& flag = "--image_size");

// Throws xtrain::Error naming --model and the allowed names for an unknown name.
std::shared_ptr<const Graph> build_model(const std::string& name, int num_classes);

}  // namespace xtrain
