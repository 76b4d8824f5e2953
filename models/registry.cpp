#include "models/registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>
#include <map>

#include "lib/base/check.h"
#include "models/cifar_resnet.h"
#include "models/convnext.h"
#include "models/densenet.h"
#include "models/efficientnet.h"
#include "models/googlenet.h"
#include "models/inception.h"
#include "models/mnasnet.h"
#include "models/mobilenet_v2.h"
#include "models/mobilenet_v3.h"
#include "models/regnet.h"
#include "models/resnet.h"
#include "models/shufflenet_v2.h"
#include "models/squeezenet.h"
#include "models/vgg.h"

namespace xtrain {
namespace {

using Builder = std::function<std::shared_ptr<const Graph>(int num_classes)>;

const std::map<std::string, Builder>& builders() {
  static const std::map<std::string, Builder> kBuilders = {
      {"resnet18", resnet18},
      {"resnet34", resnet34},
      {"resnet50", resnet50},
      {"resnet101", resnet101},
      {"resnet152", resnet152},
      {"resnext50_32x4d", resnext50_32x4d},
      {"resnext101_32x8d", resnext101_32x8d},
      {"resnext101_64x4d", resnext101_64x4d},
      {"wide_resnet50_2", wide_resnet50_2},
      {"wide_resnet101_2", wide_resnet101_2},
      {"vgg11", [](int k) { return vgg(11, false, k); }},
      {"vgg13", [](int k) { return vgg(13, false, k); }},
      {"vgg16", [](int k) { return vgg(16, false, k); }},
      {"vgg19", [](int k) { return vgg(19, false, k); }},
      {"vgg11_bn", [](int k) { return vgg(11, true, k); }},
      {"vgg13_bn", [](int k) { return vgg(13, true, k); }},
      {"vgg16_bn", [](int k) { return vgg(16, true, k); }},
      {"vgg19_bn", [](int k) { return vgg(19, true, k); }},
      {"alexnet", alexnet},
      {"squeezenet1_0", squeezenet1_0},
      {"squeezenet1_1", squeezenet1_1},
      {"densenet121", densenet121},
      {"densenet161", densenet161},
      {"densenet169", densenet169},
      {"densenet201", densenet201},
      {"googlenet", googlenet},
      {"inception_v3", inception_v3},
      {"mobilenet_v2", mobilenet_v2},
      {"mobilenet_v3_large", mobilenet_v3_large},
      {"mobilenet_v3_small", mobilenet_v3_small},
      {"efficientnet_b0", efficientnet_b0},
      {"efficientnet_b1", efficientnet_b1},
      {"efficientnet_b2", efficientnet_b2},
      {"efficientnet_b3", efficientnet_b3},
      {"efficientnet_b4", efficientnet_b4},
      {"efficientnet_b5", efficientnet_b5},
      {"efficientnet_b6", efficientnet_b6},
      {"efficientnet_b7", efficientnet_b7},
      {"efficientnet_v2_s", efficientnet_v2_s},
      {"efficientnet_v2_m", efficientnet_v2_m},
      {"efficientnet_v2_l", efficientnet_v2_l},
      {"shufflenet_v2_x0_5", shufflenet_v2_x0_5},
      {"shufflenet_v2_x1_0", shufflenet_v2_x1_0},
      {"shufflenet_v2_x1_5", shufflenet_v2_x1_5},
      {"shufflenet_v2_x2_0", shufflenet_v2_x2_0},
      {"mnasnet0_5", [](int k) { return mnasnet(0.5, k); }},
      {"mnasnet0_75", [](int k) { return mnasnet(0.75, k); }},
      {"mnasnet1_0", [](int k) { return mnasnet(1.0, k); }},
      {"mnasnet1_3", [](int k) { return mnasnet(1.3, k); }},
      {"regnet_x_400mf", regnet_x_400mf},
      {"regnet_x_800mf", regnet_x_800mf},
      {"regnet_x_1_6gf", regnet_x_1_6gf},
      {"regnet_x_3_2gf", regnet_x_3_2gf},
      {"regnet_x_8gf", regnet_x_8gf},
      {"regnet_x_16gf", regnet_x_16gf},
      {"regnet_x_32gf", regnet_x_32gf},
      {"regnet_y_400mf", regnet_y_400mf},
      {"regnet_y_800mf", regnet_y_800mf},
      {"regnet_y_1_6gf", regnet_y_1_6gf},
      {"regnet_y_3_2gf", regnet_y_3_2gf},
      {"regnet_y_8gf", regnet_y_8gf},
      {"regnet_y_16gf", regnet_y_16gf},
      {"regnet_y_32gf", regnet_y_32gf},
      {"regnet_y_128gf", regnet_y_128gf},
      {"convnext_tiny", convnext_tiny},
      {"convnext_small", convnext_small},
      {"convnext_base", convnext_base},
      {"convnext_large", convnext_large},
      {"resnet20", [](int k) { return cifar_resnet(20, k); }},
      {"resnet32", [](int k) { return cifar_resnet(32, k); }},
      {"resnet44", [](int k) { return cifar_resnet(44, k); }},
      {"resnet56", [](int k) { return cifar_resnet(56, k); }},
      {"resnet110", [](int k) { return cifar_resnet(110, k); }},
  };
  return kBuilders;
}

}  // namespace

const std::vector<std::string>& model_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const auto& [name, builder] : builders()) names.push_back(name);
    return names;
  }();
  return kNames;
}

int default_image_size(const std::string& model) {
  // The crop_size of each model's DEFAULT weights' transforms in torchvision.
  static const std::map<std::string, int> kSizes = {
      {"inception_v3", 299},      {"efficientnet_b1", 240},  {"efficientnet_b2", 288},
      {"efficientnet_b3", 300},   {"efficientnet_b4", 380},  {"efficientnet_b5", 456},
      {"efficientnet_b6", 528},   {"efficientnet_b7", 600},  {"efficientnet_v2_s", 384},
      {"efficientnet_v2_m", 480}, {"efficientnet_v2_l", 480}};
  const auto it = kSizes.find(model);
  return it != kSizes.end() ? it->second : 224;
}

void check_image_size(const std::string& model, const Graph& graph, int image_size,
                      const std::string& flag) {
  const auto fits = [&](int side) {
    graph.infer_shapes(Shape{1, side, side, graph.input_channels()});
  };
  try {
    fits(image_size);
  } catch (const Error& e) {
    int smallest = image_size + 1;  // shape arithmetic only: a scan costs microseconds per size
    for (; smallest < 4 * image_size + 512; ++smallest) {
      try {
        fits(smallest);
        break;
      } catch (const Error&) {
      }
    }
    throw Error(fmt::format("{}={} is too small for {} (smallest: {}): {}", flag, image_size, model,
                            smallest, e.what()),
                e.where());
  }
}

std::shared_ptr<const Graph> build_model(const std::string& name, int num_classes) {
  const auto it = builders().find(name);
  XTRAIN_CHECK(it != builders().end(), "--model: unknown model '{}' (allowed: {})", name,
               fmt::join(model_names(), ", "));
  XTRAIN_CHECK(num_classes > 0, "--num_classes must be > 0, got {}", num_classes);
  return it->second(num_classes);
}

}  // namespace xtrain
