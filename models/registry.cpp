#include "models/registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>
#include <map>

#include "lib/base/check.h"
#include "models/cifar_resnet.h"
#include "models/resnet.h"

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

std::shared_ptr<const Graph> build_model(const std::string& name, int num_classes) {
  const auto it = builders().find(name);
  XTRAIN_CHECK(it != builders().end(), "--model: unknown model '{}' (allowed: {})", name,
               fmt::join(model_names(), ", "));
  XTRAIN_CHECK(num_classes > 0, "--num_classes must be > 0, got {}", num_classes);
  return it->second(num_classes);
}

}  // namespace xtrain
