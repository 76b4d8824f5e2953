// Every torchvision model of the registry against torchvision's own state_dict: the same names
// with the same shapes once converted to PyTorch's layouts (conv weights OIHW). Order is not
// compared: checkpoints are looked up by name, and a fused layer (a ResNet's bn3 with the
// residual add) comes after the downsample branch it reads. tests/golden/state_dict_keys.json comes
// from scripts/make_state_dict_keys.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "lib/io/torch_layout.h"
#include "models/registry.h"
#include "tests/models/golden_file.h"

namespace xtrain {
namespace {

using Entry = std::pair<std::string, std::vector<int64_t>>;

// Names and PyTorch shapes of the model's parameters, buffers and counters, without allocating
// them (VGG-19 has 144 million parameters).
std::vector<Entry> our_state_dict(const std::string& model) {
  std::vector<Entry> entries;
  const std::shared_ptr<const Graph> graph = build_model(model, 1000);
  for (const Node& node : graph->nodes()) {
    for (const ParamSpec& spec : node.layer->param_specs()) {
      entries.emplace_back(node.layer->name() + "." + spec.name,
                           torch_shape(torch_layout(*node.layer, spec), spec.shape));
    }
  }
  return entries;
}

TEST(StateDict, EveryModelHasTorchvisionsNamesAndShapes) {
  const nlohmann::json torchvision = testing::load_golden_file("state_dict_keys.json");
  EXPECT_EQ(torchvision.size(), 68u);
  for (const auto& [model, keys] : torchvision.items()) {
    SCOPED_TRACE(model);
    std::vector<Entry> theirs;
    for (const auto& key : keys) {
      theirs.emplace_back(key[0].get<std::string>(), key[1].get<std::vector<int64_t>>());
    }
    std::vector<Entry> ours = our_state_dict(model);
    std::sort(ours.begin(), ours.end());
    std::sort(theirs.begin(), theirs.end());
    ASSERT_EQ(ours.size(), theirs.size());
    for (size_t i = 0; i < ours.size(); ++i) {
      ASSERT_EQ(ours[i].first, theirs[i].first) << "sorted entry " << i;
      EXPECT_EQ(ours[i].second, theirs[i].second) << ours[i].first;
    }
  }
}

}  // namespace
}  // namespace xtrain
