// The model zoo against torchvision: parameter counts, state_dict names and sizes, and the
// multiply-adds the driver prints. The counts are torchvision's sum(p.numel() for p in
// model.parameters()) with 1000 classes, and He et al. 2015's CIFAR models with 10.
#include "models/registry.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

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
      {"resnet18", 1000, 11689512},
      {"resnet34", 1000, 21797672},
      {"resnet50", 1000, 25557032},
      {"resnet101", 1000, 44549160},
      {"resnet152", 1000, 60192808},
      {"resnet20", 10, 269722},
      {"resnet56", 10, 853018},
      {"resnext50_32x4d", 1000, 25028904},
      {"resnext101_32x8d", 1000, 88791336},
      {"resnext101_64x4d", 1000, 83455272},
      {"wide_resnet50_2", 1000, 68883240},
      {"wide_resnet101_2", 1000, 126886696},
      {"vgg11", 1000, 132863336},
      {"vgg11_bn", 1000, 132868840},
      {"vgg13", 1000, 133047848},
      {"vgg13_bn", 1000, 133053736},
      {"vgg16", 1000, 138357544},
      {"vgg16_bn", 1000, 138365992},
      {"vgg19", 1000, 143667240},
      {"vgg19_bn", 1000, 143678248},
      {"alexnet", 1000, 61100840},
      {"squeezenet1_0", 1000, 1248424},
      {"squeezenet1_1", 1000, 1235496},
      {"densenet121", 1000, 7978856},
      {"densenet161", 1000, 28681000},
      {"densenet169", 1000, 14149480},
      {"densenet201", 1000, 20013928},
      {"inception_v3", 1000, 23834568},
      {"mobilenet_v2", 1000, 3504872},
      {"mobilenet_v3_large", 1000, 5483032},
      {"mobilenet_v3_small", 1000, 2542856},
      {"efficientnet_b0", 1000, 5288548},
      {"efficientnet_b1", 1000, 7794184},
      {"efficientnet_b2", 1000, 9109994},
      {"efficientnet_b3", 1000, 12233232},
      {"efficientnet_b4", 1000, 19341616},
      {"efficientnet_b5", 1000, 30389784},
      {"efficientnet_b6", 1000, 43040704},
      {"efficientnet_b7", 1000, 66347960},
      {"efficientnet_v2_s", 1000, 21458488},
      {"efficientnet_v2_m", 1000, 54139356},
      {"efficientnet_v2_l", 1000, 118515272},
      {"googlenet", 1000, 6624904},
      {"shufflenet_v2_x0_5", 1000, 1366792},
      {"shufflenet_v2_x1_0", 1000, 2278604},
      {"shufflenet_v2_x1_5", 1000, 3503624},
      {"shufflenet_v2_x2_0", 1000, 7393996},
      {"mnasnet0_5", 1000, 2218512},
      {"mnasnet0_75", 1000, 3170208},
      {"mnasnet1_0", 1000, 4383312},
      {"mnasnet1_3", 1000, 6282256},
      {"regnet_x_400mf", 1000, 5495976},
      {"regnet_x_800mf", 1000, 7259656},
      {"regnet_x_1_6gf", 1000, 9190136},
      {"regnet_x_3_2gf", 1000, 15296552},
      {"regnet_x_8gf", 1000, 39572648},
      {"regnet_x_16gf", 1000, 54278536},
      {"regnet_x_32gf", 1000, 107811560},
      {"regnet_y_400mf", 1000, 4344144},
      {"regnet_y_800mf", 1000, 6432512},
      {"regnet_y_1_6gf", 1000, 11202430},
      {"regnet_y_3_2gf", 1000, 19436338},
      {"regnet_y_8gf", 1000, 39381472},
      {"regnet_y_16gf", 1000, 83590140},
      {"regnet_y_32gf", 1000, 145046770},
      {"regnet_y_128gf", 1000, 644812894},
      {"convnext_tiny", 1000, 28589128},
      {"convnext_small", 1000, 50223688},
      {"convnext_base", 1000, 88591464},
      {"convnext_large", 1000, 197767336},
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

// torchvision's module indices, ReLUs and pools counted: vgg16_bn has 13 convs and 13 BatchNorms
// (6 state_dict entries each) and 3 Linear layers; squeezenet1_1's Fire modules keep their names.
TEST(Registry, StateDictKeysOfVggAlexNetAndSqueezeNet) {
  const ParamStore vgg16_bn(*build_model("vgg16_bn", 1000));
  EXPECT_EQ(vgg16_bn.entries().size(), 13u * 2 + 13u * 5 + 3u * 2);
  for (const char* key :
       {"features.0.weight", "features.0.bias", "features.1.running_var", "features.41.weight",
        "features.41.bias", "features.41.num_batches_tracked", "classifier.0.weight",
        "classifier.3.bias", "classifier.6.weight"}) {
    EXPECT_NE(vgg16_bn.find(key), nullptr) << key;
  }
  const ParamStore vgg11(*build_model("vgg11", 1000));
  for (const char* key : {"features.0.weight", "features.3.weight", "features.18.bias"}) {
    EXPECT_NE(vgg11.find(key), nullptr) << key;
  }
  const ParamStore alexnet(*build_model("alexnet", 1000));
  for (const char* key : {"features.0.weight", "features.3.bias", "features.10.weight",
                          "classifier.1.weight", "classifier.4.bias", "classifier.6.weight"}) {
    EXPECT_NE(alexnet.find(key), nullptr) << key;
  }
  EXPECT_EQ(alexnet.find("classifier.1.weight")->spec.shape, (Shape{4096, 256 * 6 * 6}));
  const ParamStore squeezenet(*build_model("squeezenet1_1", 1000));
  for (const char* key : {"features.0.weight", "features.3.squeeze.weight",
                          "features.12.expand3x3.bias", "classifier.1.weight"}) {
    EXPECT_NE(squeezenet.find(key), nullptr) << key;
  }
  EXPECT_EQ(squeezenet.entries().size(), 2u + 8 * 6 + 2);
}

// --pretrained with another class count re-initializes these, and predict reads the class count
// from their bias.
TEST(Registry, ClassifierIsTheLastLayerWithParameters) {
  EXPECT_EQ(build_model("resnet50", 10)->classifier(), "fc");
  EXPECT_EQ(build_model("vgg11_bn", 10)->classifier(), "classifier.6");
  EXPECT_EQ(build_model("alexnet", 10)->classifier(), "classifier.6");
  EXPECT_EQ(build_model("squeezenet1_0", 10)->classifier(), "classifier.1");
  EXPECT_EQ(build_model("densenet121", 10)->classifier(), "classifier");
  EXPECT_EQ(build_model("inception_v3", 10)->classifier(), "fc");
  EXPECT_EQ(build_model("mobilenet_v2", 10)->classifier(), "classifier.1");
  EXPECT_EQ(build_model("mobilenet_v3_large", 10)->classifier(), "classifier.3");
  EXPECT_EQ(build_model("mobilenet_v3_small", 10)->classifier(), "classifier.3");
  EXPECT_EQ(build_model("convnext_tiny", 10)->classifier(), "classifier.2");
  EXPECT_EQ(build_model("efficientnet_b0", 10)->classifier(), "classifier.1");
  EXPECT_EQ(build_model("googlenet", 10)->classifier(), "fc");
  EXPECT_EQ(build_model("shufflenet_v2_x1_0", 10)->classifier(), "fc");
  EXPECT_EQ(build_model("mnasnet1_0", 10)->classifier(), "classifier.1");
  EXPECT_EQ(build_model("regnet_x_400mf", 10)->classifier(), "fc");
  EXPECT_EQ(build_model("regnet_y_400mf", 10)->classifier(), "fc");
}

// torchvision's weights' crop sizes where they are not 224 (EfficientNet_B1_Weights.DEFAULT's
// transforms crop 240 px, and so on).
TEST(Registry, DefaultImageSizesAreTheDefaultWeightsCrops) {
  EXPECT_EQ(default_image_size("resnet50"), 224);
  EXPECT_EQ(default_image_size("inception_v3"), 299);
  EXPECT_EQ(default_image_size("efficientnet_b0"), 224);
  EXPECT_EQ(default_image_size("efficientnet_b1"), 240);
  EXPECT_EQ(default_image_size("efficientnet_b3"), 300);
  EXPECT_EQ(default_image_size("efficientnet_b7"), 600);
  EXPECT_EQ(default_image_size("efficientnet_v2_s"), 384);
  EXPECT_EQ(default_image_size("efficientnet_v2_l"), 480);
}

// One line before any step: the flag, the model's smallest side and the layer that gave out.
// The smallest sides are torchvision's, found by running its models on 1x1, 2x2, ... images.
TEST(Registry, TooSmallImagesNameTheFlagAndTheSmallestSide) {
  const struct {
    const char* model;
    int smallest;
  } kCases[] = {{"alexnet", 63},           {"inception_v3", 75},  {"squeezenet1_0", 21},
                {"squeezenet1_1", 17},     {"vgg11", 32},         {"densenet121", 29},
                {"resnet50", 1},           {"mobilenet_v2", 1},   {"mobilenet_v3_large", 1},
                {"mobilenet_v3_small", 1}, {"googlenet", 15},     {"shufflenet_v2_x1_0", 1},
                {"mnasnet0_5", 1},         {"regnet_x_400mf", 1}, {"efficientnet_b0", 1},
                {"efficientnet_v2_s", 1},  {"regnet_y_400mf", 1}, {"convnext_tiny", 32}};
  for (const auto& c : kCases) {
    const auto graph = build_model(c.model, 10);
    EXPECT_NO_THROW(check_image_size(c.model, *graph, c.smallest)) << c.model;
    if (c.smallest == 1) continue;
    try {
      check_image_size(c.model, *graph, c.smallest - 1);
      ADD_FAILURE() << c.model << " took " << c.smallest - 1;
    } catch (const Error& e) {
      const std::string prefix =
          fmt::format("--image_size={} is too small for {} (smallest: {}): ", c.smallest - 1,
                      c.model, c.smallest);
      EXPECT_EQ(std::string(e.what()).substr(0, prefix.size()), prefix);
    }
  }
}

// Dense layers named inside their blocks, transitions between them, one BatchNorm at the end.
TEST(Registry, StateDictKeysOfDenseNet) {
  const ParamStore densenet(*build_model("densenet121", 1000));
  for (const char* key :
       {"features.conv0.weight", "features.norm0.running_mean",
        "features.denseblock1.denselayer1.norm1.running_mean",
        "features.denseblock1.denselayer6.conv2.weight", "features.transition1.conv.weight",
        "features.denseblock4.denselayer16.norm2.num_batches_tracked", "features.norm5.bias",
        "classifier.weight", "classifier.bias"}) {
    EXPECT_NE(densenet.find(key), nullptr) << key;
  }
  EXPECT_EQ(densenet.find("features.conv0.bias"), nullptr);
  // denselayer6 of block 1 sees 64 + 5 * 32 channels; transition1 halves block 1's 256.
  EXPECT_EQ(densenet.find("features.denseblock1.denselayer6.norm1.weight")->spec.shape,
            (Shape{224}));
  EXPECT_EQ(densenet.find("features.transition1.conv.weight")->spec.shape, (Shape{1, 1, 256, 128}));
  EXPECT_EQ(densenet.find("classifier.weight")->spec.shape, (Shape{1000, 1024}));
}

// BasicConv2d's conv and bn inside each branch; the factorized 7x7 as a 1x7 and a 7x1 kernel;
// no AuxLogits (aux_logits=False, as test_train_imagenet.py builds it).
TEST(Registry, StateDictKeysOfInceptionV3) {
  const ParamStore inception(*build_model("inception_v3", 1000));
  for (const char* key :
       {"Conv2d_1a_3x3.conv.weight", "Conv2d_1a_3x3.bn.running_var",
        "Mixed_5b.branch1x1.conv.weight", "Mixed_5b.branch_pool.bn.num_batches_tracked",
        "Mixed_6a.branch3x3dbl_3.conv.weight", "Mixed_7c.branch3x3dbl_3b.bn.bias", "fc.weight",
        "fc.bias"}) {
    EXPECT_NE(inception.find(key), nullptr) << key;
  }
  EXPECT_EQ(inception.find("Mixed_6b.branch7x7_2.conv.weight")->spec.shape,
            (Shape{1, 7, 128, 128}));
  EXPECT_EQ(inception.find("Mixed_6b.branch7x7_3.conv.weight")->spec.shape,
            (Shape{7, 1, 128, 192}));
  EXPECT_EQ(inception.find("fc.weight")->spec.shape, (Shape{1000, 2048}));
  for (const ParamEntry& e : inception.entries()) {
    EXPECT_EQ(e.name.rfind("AuxLogits", 0), std::string::npos) << e.name;
  }
}

// Conv2dNormActivation's conv and BatchNorm as <block>.0 and .1; an InvertedResidual's layers
// counted in its conv Sequential, the expansion absent from the first block (expand_ratio 1);
// the depthwise convolutions' weights [C, 1, 3, 3].
TEST(Registry, StateDictKeysOfMobileNetV2) {
  const ParamStore mobilenet(*build_model("mobilenet_v2", 1000));
  for (const char* key :
       {"features.0.0.weight", "features.0.1.running_var", "features.1.conv.0.0.weight",
        "features.1.conv.0.1.weight", "features.1.conv.1.weight", "features.1.conv.2.bias",
        "features.2.conv.0.0.weight", "features.2.conv.1.0.weight", "features.2.conv.2.weight",
        "features.17.conv.3.num_batches_tracked", "features.18.0.weight", "features.18.1.bias",
        "classifier.1.weight", "classifier.1.bias"}) {
    EXPECT_NE(mobilenet.find(key), nullptr) << key;
  }
  EXPECT_EQ(mobilenet.find("features.1.conv.3.weight"), nullptr);
  EXPECT_EQ(mobilenet.find("features.0.0.bias"), nullptr);
  // Weights are stored [KH, KW, C_in / groups, C_out].
  EXPECT_EQ(mobilenet.find("features.2.conv.1.0.weight")->spec.shape, (Shape{3, 3, 1, 96}));
  EXPECT_EQ(mobilenet.find("features.17.conv.2.weight")->spec.shape, (Shape{1, 1, 960, 320}));
  EXPECT_EQ(mobilenet.find("classifier.1.weight")->spec.shape, (Shape{1000, 1280}));
}

// InvertedResidual's layers counted in `block`: no expansion where the width stays (the first
// blocks), SqueezeExcitation's fc1 and fc2 as 1x1 convolutions with biases (squeeze channels
// _make_divisible(C / 4, 8)), the projection last; the classifier's Linear layers at 0 and 3.
TEST(Registry, StateDictKeysOfMobileNetV3) {
  const ParamStore small(*build_model("mobilenet_v3_small", 1000));
  for (const char* key :
       {"features.0.0.weight", "features.0.1.running_var", "features.1.block.0.0.weight",
        "features.1.block.1.fc1.weight", "features.1.block.1.fc1.bias",
        "features.1.block.1.fc2.bias", "features.1.block.2.0.weight", "features.2.block.0.0.weight",
        "features.4.block.2.fc1.bias", "features.11.block.3.1.num_batches_tracked",
        "features.12.0.weight", "features.12.1.bias", "classifier.0.weight", "classifier.3.bias"}) {
    EXPECT_NE(small.find(key), nullptr) << key;
  }
  EXPECT_EQ(small.find("features.2.block.3.0.weight"), nullptr);  // no SE in features.2
  // Weights are stored [KH, KW, C_in / groups, C_out].
  EXPECT_EQ(small.find("features.1.block.1.fc1.weight")->spec.shape, (Shape{1, 1, 16, 8}));
  EXPECT_EQ(small.find("features.4.block.1.0.weight")->spec.shape, (Shape{5, 5, 1, 96}));
  EXPECT_EQ(small.find("features.4.block.2.fc2.weight")->spec.shape, (Shape{1, 1, 24, 96}));
  EXPECT_EQ(small.find("classifier.3.weight")->spec.shape, (Shape{1000, 1024}));
  const ParamStore large(*build_model("mobilenet_v3_large", 1000));
  EXPECT_EQ(large.find("features.1.block.1.0.weight")->spec.shape, (Shape{1, 1, 16, 16}));
  EXPECT_EQ(large.find("features.13.block.2.fc1.weight")->spec.shape, (Shape{1, 1, 672, 168}));
  EXPECT_EQ(large.find("features.16.0.weight")->spec.shape, (Shape{1, 1, 160, 960}));
  EXPECT_EQ(large.find("classifier.0.weight")->spec.shape, (Shape{1280, 960}));
}

// MBConv's layers counted in `block`: no expansion in features.1 (expand ratio 1), the
// depthwise convolution, SqueezeExcitation's fc1 and fc2 (squeeze channels a quarter of the
// block's input), the projection; B3's widths are B0's times 1.2 rounded to multiples of 8 and
// its depths B0's times 1.4 rounded up.
TEST(Registry, StateDictKeysOfEfficientNet) {
  const ParamStore b0(*build_model("efficientnet_b0", 1000));
  for (const char* key :
       {"features.0.0.weight", "features.0.1.running_var", "features.1.0.block.0.0.weight",
        "features.1.0.block.1.fc1.bias", "features.1.0.block.2.1.num_batches_tracked",
        "features.2.0.block.0.0.weight", "features.2.1.block.2.fc2.weight",
        "features.6.3.block.3.1.bias", "features.8.0.weight", "features.8.1.running_mean",
        "classifier.1.weight", "classifier.1.bias"}) {
    EXPECT_NE(b0.find(key), nullptr) << key;
  }
  EXPECT_EQ(b0.find("features.1.0.block.3.0.weight"), nullptr);  // no expansion: three layers
  EXPECT_EQ(b0.find("features.7.1.block.0.0.weight"), nullptr);  // features.7 has one block
  // Weights are stored [KH, KW, C_in / groups, C_out].
  EXPECT_EQ(b0.find("features.1.0.block.1.fc1.weight")->spec.shape, (Shape{1, 1, 32, 8}));
  EXPECT_EQ(b0.find("features.3.0.block.1.0.weight")->spec.shape, (Shape{5, 5, 1, 144}));
  EXPECT_EQ(b0.find("features.3.1.block.2.fc1.weight")->spec.shape, (Shape{1, 1, 240, 10}));
  EXPECT_EQ(b0.find("features.8.0.weight")->spec.shape, (Shape{1, 1, 320, 1280}));
  EXPECT_EQ(b0.find("classifier.1.weight")->spec.shape, (Shape{1000, 1280}));
  const ParamStore b3(*build_model("efficientnet_b3", 1000));
  EXPECT_EQ(b3.find("features.0.0.weight")->spec.shape, (Shape{3, 3, 3, 40}));
  EXPECT_NE(b3.find("features.6.5.block.0.0.weight"), nullptr);  // ceil(4 * 1.4) = 6 blocks
  EXPECT_EQ(b3.find("features.6.6.block.0.0.weight"), nullptr);
  EXPECT_EQ(b3.find("features.8.0.weight")->spec.shape, (Shape{1, 1, 384, 1536}));
}

// V2's FusedMBConv: one full convolution with SiLU where the expand ratio is 1 (features.1),
// else the strided full convolution to the expanded width and a 1x1 projection; no
// squeeze-and-excitation. Its MBConv stages are V1's; the head is 1280 wide.
TEST(Registry, StateDictKeysOfEfficientNetV2) {
  const ParamStore s(*build_model("efficientnet_v2_s", 1000));
  for (const char* key : {"features.1.0.block.0.0.weight", "features.1.1.block.0.1.running_var",
                          "features.2.0.block.1.0.weight", "features.3.3.block.1.1.bias",
                          "features.4.0.block.2.fc1.weight", "features.6.14.block.3.1.weight",
                          "features.7.0.weight", "classifier.1.bias"}) {
    EXPECT_NE(s.find(key), nullptr) << key;
  }
  EXPECT_EQ(s.find("features.1.0.block.1.0.weight"), nullptr);  // expand ratio 1: one layer
  EXPECT_EQ(s.find("features.2.0.block.2.0.weight"), nullptr);  // fused: two layers
  EXPECT_EQ(s.find("features.1.0.block.0.0.weight")->spec.shape, (Shape{3, 3, 24, 24}));
  EXPECT_EQ(s.find("features.2.0.block.0.0.weight")->spec.shape, (Shape{3, 3, 24, 96}));
  EXPECT_EQ(s.find("features.2.0.block.1.0.weight")->spec.shape, (Shape{1, 1, 96, 48}));
  EXPECT_EQ(s.find("features.4.0.block.2.fc1.weight")->spec.shape, (Shape{1, 1, 256, 16}));
  EXPECT_EQ(s.find("features.7.0.weight")->spec.shape, (Shape{1, 1, 256, 1280}));
}

// BasicConv2d's conv and bn in each Inception branch, the Sequential branches numbered; branch 3's
// convolution is 3x3 (torchvision's deviation from the paper's 5x5); no aux1 or aux2
// (aux_logits=False).
TEST(Registry, StateDictKeysOfGoogLeNet) {
  const ParamStore googlenet(*build_model("googlenet", 1000));
  for (const char* key : {"conv1.conv.weight", "conv1.bn.running_var",
                          "conv3.bn.num_batches_tracked", "inception3a.branch1.conv.weight",
                          "inception3a.branch2.1.bn.bias", "inception4e.branch3.0.conv.weight",
                          "inception5b.branch4.1.bn.running_mean", "fc.weight", "fc.bias"}) {
    EXPECT_NE(googlenet.find(key), nullptr) << key;
  }
  EXPECT_EQ(googlenet.find("conv1.conv.bias"), nullptr);
  EXPECT_EQ(googlenet.find("inception3a.branch3.1.conv.weight")->spec.shape, (Shape{3, 3, 16, 32}));
  EXPECT_EQ(googlenet.find("inception5b.branch4.1.conv.weight")->spec.shape,
            (Shape{1, 1, 832, 128}));
  EXPECT_EQ(googlenet.find("fc.weight")->spec.shape, (Shape{1000, 1024}));
  for (const ParamEntry& e : googlenet.entries()) {
    EXPECT_EQ(e.name.rfind("aux", 0), std::string::npos) << e.name;
  }
}

// Sequential indices counted as torchvision counts them (ReLUs take an index and no keys); branch1
// only in each stage's first block (stride 2); depthwise weights [C, 1, 3, 3].
TEST(Registry, StateDictKeysOfShuffleNetV2) {
  const ParamStore shufflenet(*build_model("shufflenet_v2_x1_0", 1000));
  for (const char* key :
       {"conv1.0.weight", "conv1.1.running_var", "stage2.0.branch1.0.weight",
        "stage2.0.branch1.1.bias", "stage2.0.branch1.2.weight", "stage2.0.branch1.3.running_mean",
        "stage2.0.branch2.0.weight", "stage2.0.branch2.3.weight", "stage3.7.branch2.4.weight",
        "stage4.3.branch2.6.num_batches_tracked", "conv5.0.weight", "conv5.1.bias", "fc.weight",
        "fc.bias"}) {
    EXPECT_NE(shufflenet.find(key), nullptr) << key;
  }
  EXPECT_EQ(shufflenet.find("stage2.1.branch1.0.weight"), nullptr);
  EXPECT_EQ(shufflenet.find("conv1.0.bias"), nullptr);
  // Weights are stored [KH, KW, C_in / groups, C_out]: stage2's blocks after the first see half
  // of its 116 channels.
  EXPECT_EQ(shufflenet.find("stage2.0.branch1.0.weight")->spec.shape, (Shape{3, 3, 1, 24}));
  EXPECT_EQ(shufflenet.find("stage2.0.branch2.0.weight")->spec.shape, (Shape{1, 1, 24, 58}));
  EXPECT_EQ(shufflenet.find("stage2.1.branch2.0.weight")->spec.shape, (Shape{1, 1, 58, 58}));
  EXPECT_EQ(shufflenet.find("stage2.1.branch2.3.weight")->spec.shape, (Shape{3, 3, 1, 58}));
  EXPECT_EQ(shufflenet.find("fc.weight")->spec.shape, (Shape{1000, 1024}));
}

// One nn.Sequential, `layers`, whose ReLUs take indices: the stem's convolutions at 0, 3 and 6,
// the six stacks at 8 to 13 (each block's own `layers` the same way), the last convolution at 14.
// mnasnet0_5 halves every depth (rounded to a multiple of 8) but keeps the 1280 last channels.
TEST(Registry, StateDictKeysOfMnasNet) {
  const ParamStore mnasnet(*build_model("mnasnet0_5", 1000));
  for (const char* key :
       {"layers.0.weight", "layers.1.running_var", "layers.4.bias", "layers.7.running_var",
        "layers.8.0.layers.0.weight", "layers.8.0.layers.4.weight", "layers.8.2.layers.7.bias",
        "layers.13.0.layers.7.num_batches_tracked", "layers.15.bias", "classifier.1.bias"}) {
    EXPECT_NE(mnasnet.find(key), nullptr) << key;
  }
  EXPECT_EQ(mnasnet.find("layers.2.weight"), nullptr);  // a ReLU
  EXPECT_EQ(mnasnet.find("layers.0.bias"), nullptr);
  // Weights are stored [KH, KW, C_in / groups, C_out].
  EXPECT_EQ(mnasnet.find("layers.3.weight")->spec.shape, (Shape{3, 3, 1, 16}));
  EXPECT_EQ(mnasnet.find("layers.6.weight")->spec.shape, (Shape{1, 1, 16, 8}));
  EXPECT_EQ(mnasnet.find("layers.9.2.layers.3.weight")->spec.shape, (Shape{5, 5, 1, 72}));
  EXPECT_EQ(mnasnet.find("layers.14.weight")->spec.shape, (Shape{1, 1, 160, 1280}));
  EXPECT_EQ(mnasnet.find("classifier.1.weight")->spec.shape, (Shape{1000, 1280}));
}

// Stages named blockN inside trunk_output, their blocks blockN-i; each block's transform f's
// Conv2dNormActivations a, b and c, and proj (the shortcut's) where the first block of a stage
// changes the width or halves the grid: every stage's first block, never the others.
TEST(Registry, StateDictKeysOfRegNetX) {
  const ParamStore regnet(*build_model("regnet_x_400mf", 1000));
  for (const char* key :
       {"stem.0.weight", "stem.1.running_var", "trunk_output.block1.block1-0.proj.0.weight",
        "trunk_output.block1.block1-0.proj.1.num_batches_tracked",
        "trunk_output.block1.block1-0.f.a.0.weight", "trunk_output.block2.block2-1.f.a.1.bias",
        "trunk_output.block3.block3-6.f.b.1.running_mean",
        "trunk_output.block4.block4-11.f.c.1.running_var", "fc.weight", "fc.bias"}) {
    EXPECT_NE(regnet.find(key), nullptr) << key;
  }
  EXPECT_EQ(regnet.find("trunk_output.block2.block2-1.proj.0.weight"), nullptr);
  EXPECT_EQ(regnet.find("trunk_output.block4.block4-12.f.a.0.weight"), nullptr);
  EXPECT_EQ(regnet.find("stem.0.bias"), nullptr);
  // Weights are stored [KH, KW, C_in / groups, C_out]: 32 channels in groups of 16.
  EXPECT_EQ(regnet.find("trunk_output.block1.block1-0.f.b.0.weight")->spec.shape,
            (Shape{3, 3, 16, 32}));
  EXPECT_EQ(regnet.find("trunk_output.block4.block4-11.f.c.0.weight")->spec.shape,
            (Shape{1, 1, 400, 400}));
  EXPECT_EQ(regnet.find("fc.weight")->spec.shape, (Shape{1000, 400}));
}

// RegNetY's blocks as RegNetX's, with a squeeze-and-excitation gate f.se between f.b and f.c whose
// fc1 squeezes to a quarter of the block's input width: 48 channels gated through 8 in the first
// block (input: the stem's 32), 440 through 52 in block4-0 (input 208) and through 110 after it.
TEST(Registry, StateDictKeysOfRegNetY) {
  const ParamStore regnet(*build_model("regnet_y_400mf", 1000));
  for (const char* key :
       {"stem.0.weight", "trunk_output.block1.block1-0.proj.0.weight",
        "trunk_output.block1.block1-0.f.se.fc1.weight",
        "trunk_output.block1.block1-0.f.se.fc1.bias", "trunk_output.block2.block2-2.f.se.fc2.bias",
        "trunk_output.block4.block4-5.f.c.1.running_var", "fc.weight"}) {
    EXPECT_NE(regnet.find(key), nullptr) << key;
  }
  EXPECT_EQ(regnet.find("trunk_output.block4.block4-6.f.a.0.weight"), nullptr);
  EXPECT_EQ(regnet.find("trunk_output.block1.block1-0.f.se.fc1.weight")->spec.shape,
            (Shape{1, 1, 48, 8}));
  EXPECT_EQ(regnet.find("trunk_output.block1.block1-0.f.se.fc2.weight")->spec.shape,
            (Shape{1, 1, 8, 48}));
  EXPECT_EQ(regnet.find("trunk_output.block4.block4-0.f.se.fc1.weight")->spec.shape,
            (Shape{1, 1, 440, 52}));
  EXPECT_EQ(regnet.find("trunk_output.block4.block4-1.f.se.fc1.weight")->spec.shape,
            (Shape{1, 1, 440, 110}));
  EXPECT_EQ(regnet.find("trunk_output.block4.block4-1.f.se.fc2.bias")->spec.shape, (Shape{440}));
  // 104 channels in groups of 8 (group width 8).
  EXPECT_EQ(regnet.find("trunk_output.block2.block2-0.f.b.0.weight")->spec.shape,
            (Shape{3, 3, 8, 104}));
  EXPECT_EQ(regnet.find("fc.weight")->spec.shape, (Shape{1000, 440}));
}

// CNBlock's layers counted in `block` (the permutes, 1 and 6, have none), its layer scale a tensor
// of the block itself; the stem's and the downsamplings' LayerNorm2d and convolutions (with
// biases); the classifier's LayerNorm2d and Linear at 0 and 2.
TEST(Registry, StateDictKeysOfConvNeXt) {
  const ParamStore tiny(*build_model("convnext_tiny", 1000));
  for (const char* key :
       {"features.0.0.weight", "features.0.0.bias", "features.0.1.weight", "features.0.1.bias",
        "features.1.0.layer_scale", "features.1.0.block.0.bias", "features.1.0.block.2.weight",
        "features.1.0.block.3.bias", "features.1.2.block.5.weight", "features.2.0.weight",
        "features.2.1.bias", "features.5.8.layer_scale", "features.7.2.block.5.bias",
        "classifier.0.weight", "classifier.0.bias", "classifier.2.weight", "classifier.2.bias"}) {
    EXPECT_NE(tiny.find(key), nullptr) << key;
  }
  EXPECT_EQ(tiny.find("features.5.9.layer_scale"), nullptr);  // 9 blocks in stage 3
  EXPECT_EQ(tiny.find("features.7.0.block.1.weight"), nullptr);
  // Weights are stored [KH, KW, C_in / groups, C_out]; the Linear layers over channels as 1x1
  // convolutions' (PyTorch's [4C, C] in a checkpoint), the layer scale as PyTorch's [C, 1, 1].
  EXPECT_EQ(tiny.find("features.0.0.weight")->spec.shape, (Shape{4, 4, 3, 96}));
  EXPECT_EQ(tiny.find("features.1.0.block.0.weight")->spec.shape, (Shape{7, 7, 1, 96}));
  EXPECT_EQ(tiny.find("features.1.0.block.3.weight")->spec.shape, (Shape{1, 1, 96, 384}));
  EXPECT_EQ(tiny.find("features.1.0.block.5.weight")->spec.shape, (Shape{1, 1, 384, 96}));
  EXPECT_EQ(tiny.find("features.1.0.layer_scale")->spec.shape, (Shape{96, 1, 1}));
  EXPECT_EQ(tiny.find("features.6.1.weight")->spec.shape, (Shape{2, 2, 384, 768}));
  EXPECT_EQ(tiny.find("classifier.2.weight")->spec.shape, (Shape{1000, 768}));
}

// torchvision's initialization: convolutions and Linear layers truncated normal with std 0.02 and
// zero biases, LayerNorm ones and zeros, the layer scale 1e-6 everywhere.
TEST(Registry, ConvNeXtInitializesAsTorchvision) {
  const ParamStore tiny(*build_model("convnext_tiny", 1000));
  for (const char* key :
       {"features.0.0.weight", "features.1.0.block.0.weight", "features.1.0.block.3.weight",
        "features.2.1.weight", "classifier.2.weight"}) {
    const ParamSpec& spec = tiny.find(key)->spec;
    EXPECT_EQ(spec.init, Init::kTruncatedNormal) << key;
    EXPECT_EQ(spec.scale, 0.02f) << key;
  }
  for (const char* key : {"features.0.0.bias", "features.1.0.block.0.bias",
                          "features.1.0.block.5.bias", "classifier.2.bias", "classifier.0.bias"}) {
    EXPECT_EQ(tiny.find(key)->spec.init, Init::kZeros) << key;
  }
  EXPECT_EQ(tiny.find("features.1.0.block.2.weight")->spec.init, Init::kOnes);
  const ParamSpec& layer_scale = tiny.find("features.3.1.layer_scale")->spec;
  EXPECT_EQ(layer_scale.init, Init::kConstant);
  EXPECT_EQ(layer_scale.scale, 1e-6f);
}

// torchvision's training defaults: a StochasticDepth on every block's branch but the first (whose
// probability is 0), between the layer scale (the layer named after the block) and the add.
TEST(Registry, ConvNeXtDropsBranchesAfterTheLayerScale) {
  for (const char* model : {"convnext_tiny", "convnext_large"}) {
    SCOPED_TRACE(model);
    const auto graph = build_model(model, 10);
    const std::vector<Node>& nodes = graph->nodes();
    std::vector<std::string> dropped;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (std::string(nodes[i].layer->type()) != "StochasticDepth") continue;
      dropped.push_back(nodes[i].layer->name());
      const Layer& before = *nodes[nodes[i].inputs[0] - 1].layer;
      EXPECT_STREQ(before.type(), "LayerScale");
      EXPECT_EQ(before.name() + ".stochastic_depth", nodes[i].layer->name());
      EXPECT_STREQ(nodes[i + 1].layer->type(), "Add");
    }
    ASSERT_FALSE(dropped.empty());
    EXPECT_EQ(dropped.front(), "features.1.1.stochastic_depth");
    EXPECT_EQ(dropped.back(), "features.7.2.stochastic_depth");
    EXPECT_EQ(dropped.size(), std::string(model) == "convnext_tiny" ? 17u : 35u);
  }
}

// The classifiers' grids are fixed by adaptive pooling, so any image size from the smallest the
// features allow gives the same logits shape; the features' own arithmetic is torchvision's
// (published multiply-adds: vgg16 15.47 G, alexnet 0.71 G, squeezenet1_1 0.35 G at 224).
TEST(Registry, MultiplyAddsOfTheOtherFamilies) {
  const Shape image{1, 224, 224, 3};
  EXPECT_NEAR(build_model("vgg16", 1000)->macs(image) / 1e9, 15.47, 0.01);
  EXPECT_NEAR(build_model("alexnet", 1000)->macs(image) / 1e9, 0.71, 0.01);
  EXPECT_NEAR(build_model("squeezenet1_1", 1000)->macs(image) / 1e9, 0.35, 0.01);
  // Convolutions and Linear layers summed by forward hooks on torchvision's densenet121.
  EXPECT_EQ(build_model("densenet121", 1000)->macs(image), 2834161664);
  EXPECT_EQ(build_model("inception_v3", 1000)->macs(Shape{1, 299, 299, 3}), 5713216096);
  EXPECT_EQ(build_model("mobilenet_v2", 1000)->macs(image), 300774272);  // the same hooks
  EXPECT_EQ(build_model("mobilenet_v3_large", 1000)->macs(image), 216589760);
  EXPECT_EQ(build_model("mobilenet_v3_small", 1000)->macs(image), 56510400);
  EXPECT_EQ(build_model("efficientnet_b0", 1000)->macs(image), 385814752);
  EXPECT_EQ(build_model("efficientnet_v2_s", 1000)->macs(Shape{1, 384, 384, 3}), 8365617152);
  EXPECT_EQ(build_model("googlenet", 1000)->macs(image), 1498376192);
  EXPECT_EQ(build_model("shufflenet_v2_x0_5", 1000)->macs(image), 40476448);
  EXPECT_EQ(build_model("shufflenet_v2_x1_0", 1000)->macs(image), 144907992);
  EXPECT_EQ(build_model("shufflenet_v2_x1_5", 1000)->macs(image), 295759392);
  EXPECT_EQ(build_model("shufflenet_v2_x2_0", 1000)->macs(image), 583253464);
  EXPECT_EQ(build_model("mnasnet0_5", 1000)->macs(image), 104455968);
  EXPECT_EQ(build_model("regnet_x_400mf", 1000)->macs(image), 413812608);
  EXPECT_EQ(build_model("regnet_y_400mf", 1000)->macs(image), 401842848);
  EXPECT_EQ(build_model("convnext_tiny", 1000)->macs(image), 4455531264);  // the same hooks
  EXPECT_EQ(build_model("vgg11", 10)->infer_shapes(Shape{2, 32, 32, 3}).back(), (Shape{2, 10}));
  EXPECT_EQ(build_model("alexnet", 10)->infer_shapes(Shape{2, 63, 63, 3}).back(), (Shape{2, 10}));
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
