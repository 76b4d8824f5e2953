// The model zoo against torchvision: parameter counts, state_dict names and sizes, and the
// multiply-adds the driver prints. The counts are torchvision's sum(p.numel() for p in
// model.parameters()) with 1000 classes, and He et al. 2015's CIFAR models with 10.
#include "models/registry.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "lib/base/check.h"
#include "lib/graph/param_store.h"

namespace xtrain {
namespace {

struct ModelCount {
  const char* name;
  int num_classes;
  int64_t parameters;
};

TEST(Registry, ParameterCountsAreTorchvisions) {
  const ModelCount kCounts[] = {
      {"resnet18", 1000, 11689512},  {"resnet34", 1000, 21797672},  {"resnet50", 1000, 25557032},
      {"resnet101", 1000, 44549160}, {"resnet152", 1000, 60192808}, {"resnet20", 10, 269722},
      {"resnet56", 10, 853018},
      {"resnext50_32x4d", 1000, 25028904},
      {"resnext101_32x8d", 1000, 88791336},
      {"resnext101_64x4d", 1000, 83455272},
      {"wide_resnet50_2", 1000, 68883240},
      {"wide_resnet101_2", 1000, 126886696},
  };
  for (const ModelCount& m : kCounts) {
    EXPECT_EQ(build_model(m.name, m.num_classes)->num_parameters(), m.parameters) << m.name;
  }
}

// resnet32/44/110 have no published count to copy; each basic block of a stage adds two 3x3
// convs and two BatchNorms, so depth 6n + 2 grows by a fixed amount per n from resnet20's.
TEST(Registry, CifarResNetsGrowByTheirBlocks) {
  const int64_t per_n = 2 * (16 * 16 * 9 + 2 * 16) + 2 * (32 * 32 * 9 + 2 * 32) +
                        2 * (64 * 64 * 9 + 2 * 64);  // one more block in each stage
  const int64_t resnet20 = build_model("resnet20", 10)->num_parameters();
  EXPECT_EQ(build_model("resnet32", 10)->num_parameters(), resnet20 + 2 * per_n);
  EXPECT_EQ(build_model("resnet44", 10)->num_parameters(), resnet20 + 4 * per_n);
  EXPECT_EQ(build_model("resnet110", 10)->num_parameters(), resnet20 + 15 * per_n);
}

TEST(Registry, NumClassesSizesTheClassifier) {
  const auto graph = build_model("resnet18", 37);
  EXPECT_EQ(graph->num_parameters(), 11689512 - 1000 * 513 + 37 * 513);
  const ParamStore store(*graph);
  const ParamEntry* fc = store.find("fc.weight");
  ASSERT_NE(fc, nullptr);
  EXPECT_EQ(fc->spec.shape.numel(), 37 * 512);
}

// len(model.state_dict()) in torchvision: resnet18 has 62 parameters and 60 BatchNorm buffers
// (running_mean, running_var, num_batches_tracked for each of 20 BatchNorms); resnet50 161 and
// 159.
TEST(Registry, StateDictKeysAreTorchvisions) {
  const ParamStore resnet18(*build_model("resnet18", 1000));
  EXPECT_EQ(resnet18.entries().size(), 122u);
  const ParamStore resnet50(*build_model("resnet50", 1000));
  EXPECT_EQ(resnet50.entries().size(), 320u);
  for (const char* key :
       {"conv1.weight", "bn1.running_var", "layer1.0.conv1.weight", "layer1.0.bn1.running_var",
        "layer1.0.downsample.0.weight", "layer1.0.downsample.1.num_batches_tracked",
        "layer2.0.conv2.weight", "layer4.2.bn3.bias", "fc.weight", "fc.bias"}) {
    EXPECT_NE(resnet50.find(key), nullptr) << key;
  }
  EXPECT_EQ(resnet50.find("layer1.1.downsample.0.weight"), nullptr);
  EXPECT_EQ(resnet50.find("conv1.bias"), nullptr);  // torchvision's convs have no bias
}

// v1.5: the stride of a downsampling Bottleneck sits on its 3x3 conv2, so layer2.0.conv1 keeps
// layer1's 56x56 grid and conv2 halves it. Multiply-adds tell: conv1 at 56x56 is 4x the cost it
// would have at 28x28.
TEST(Registry, Resnet50IsV1Point5) {
  const auto graph = build_model("resnet50", 1000);
  const int64_t macs = graph->macs(Shape{1, 224, 224, 3});
  EXPECT_NEAR(macs / 1e9, 4.09, 0.01);  // torchvision's published 4.09 GFLOPS (multiply-adds)
  EXPECT_NEAR(build_model("resnet18", 1000)->macs(Shape{1, 224, 224, 3}) / 1e9, 1.81, 0.01);
}

TEST(Registry, UnknownModelNamesTheFlagAndTheChoices) {
  try {
    build_model("resnet51", 1000);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("--model"), std::string::npos) << message;
    EXPECT_NE(message.find("resnet50"), std::string::npos) << message;
  }
  EXPECT_THROW(build_model("resnet18", 0), Error);
}

}  // namespace
}  // namespace xtrain
