// param_tensors: torchvision's parameter groups over the flat buffer (its set_weight_decay).
#include "lib/graph/param_groups.h"

#include <gtest/gtest.h>

#include "tests/graph/tiny_resnet.h"

namespace xtrain {
namespace {

// The tensor of the parameter with this name.
const ParamTensor& tensor_named(const std::vector<ParamTensor>& tensors, const ParamStore& store,
                                const std::string& name) {
  const ParamEntry* entry = store.find(name);
  EXPECT_NE(entry, nullptr) << name;
  for (const ParamTensor& t : tensors) {
    if (t.offset == entry->offset) return t;
  }
  ADD_FAILURE() << name << " has no tensor";
  return tensors.front();
}

TEST(ParamGroups, EveryParameterHasOneTensorEndToEnd) {
  const auto graph = testing::tiny_resnet(5);
  const ParamStore store(*graph);
  const std::vector<ParamTensor> tensors = param_tensors(*graph, store, OptimizerOptions{});
  EXPECT_EQ(covered_floats(tensors), store.num_params());
  size_t parameters = 0;
  for (const ParamEntry& e : store.entries()) parameters += e.spec.kind == ParamKind::kParameter;
  EXPECT_EQ(tensors.size(), parameters);
  for (const ParamTensor& t : tensors) EXPECT_EQ(t.weight_decay, 1e-4f);  // the XLA script's
}

TEST(ParamGroups, NormsAndBiasesTakeTheirOwnDecayWhereGiven) {
  const auto graph = testing::tiny_resnet(5);
  const ParamStore store(*graph);
  OptimizerOptions o;
  o.weight_decay = 0.5f;
  o.norm_weight_decay = 0.0f;
  std::vector<ParamTensor> tensors = param_tensors(*graph, store, o);
  EXPECT_EQ(tensor_named(tensors, store, "conv1.weight").weight_decay, 0.5f);
  EXPECT_EQ(tensor_named(tensors, store, "bn1.weight").weight_decay, 0.0f);
  EXPECT_EQ(tensor_named(tensors, store, "bn1.bias").weight_decay, 0.0f);
  EXPECT_EQ(tensor_named(tensors, store, "fc.bias").weight_decay, 0.5f);
  // A bias matches --bias_weight_decay first, a normalization layer's included.
  o.bias_weight_decay = 0.25f;
  tensors = param_tensors(*graph, store, o);
  EXPECT_EQ(tensor_named(tensors, store, "bn1.weight").weight_decay, 0.0f);
  EXPECT_EQ(tensor_named(tensors, store, "bn1.bias").weight_decay, 0.25f);
  EXPECT_EQ(tensor_named(tensors, store, "fc.bias").weight_decay, 0.25f);
  EXPECT_EQ(tensor_named(tensors, store, "fc.weight").weight_decay, 0.5f);
}

// LARS and LAMB scale the steps of weights, not of normalization layers or biases.
TEST(ParamGroups, WeightsAloneAreAdapted) {
  const auto graph = testing::tiny_resnet(5);
  const ParamStore store(*graph);
  const std::vector<ParamTensor> tensors = param_tensors(*graph, store, OptimizerOptions{});
  EXPECT_TRUE(tensor_named(tensors, store, "conv1.weight").adapted);
  EXPECT_TRUE(tensor_named(tensors, store, "fc.weight").adapted);
  EXPECT_FALSE(tensor_named(tensors, store, "bn1.weight").adapted);
  EXPECT_FALSE(tensor_named(tensors, store, "fc.bias").adapted);
}

}  // namespace
}  // namespace xtrain
