// RandAugment, AutoAugment (IMAGENET) and AugMix against torchvision 0.14, from
// tests/golden/augment_policies.json (scripts/make_augment_policies_golden.py): their magnitude
// tables for several image sizes are torch's float32 values; AutoAugment's sub-policies are
// torchvision's; every operation, bin and sign of RandAugment's and AutoAugment's tables, and
// Invert, give torchvision's pixels on PIL images to the bit, and every one of AugMix's gives
// its pixels on uint8 tensors (bilinear) to the bit; and whole AugMix calls, given torch's
// Dirichlet draws and chains, give torchvision's mixed pixels to the bit.
#include <gtest/gtest.h>

#include <string>

#include "data/augment_magnitudes.h"
#include "data/augment_ops.h"
#include "data/augmix.h"
#include "data/auto_augment.h"
#include "data/rand_augment.h"
#include "data/tensor_augment_ops.h"
#include "tests/data/augment_golden.h"
#include "tests/models/golden_file.h"

namespace xtrain {
namespace {

using json = nlohmann::json;
using testing::augment_op_named;
using testing::fnv1a64;

const json& golden() {
  static const json file = testing::load_golden_file("augment_policies.json");
  return file;
}

AugmentSpace space_named(const std::string& name) {
  if (name == "AugMix") return AugmentSpace::kAugMix;
  return AugmentSpace::kRandAugment;  // AutoAugment's tables are RandAugment's
}

// One table of `space` against torch's, bin by bin.
int expect_table(const std::string& name, const json& space, const std::string& op_name,
                 const json& table, int height, int width) {
  const AugmentOp op = augment_op_named(op_name);
  EXPECT_EQ(has_magnitude_bins(op), !table.empty()) << op_name;
  EXPECT_EQ(has_signed_magnitude(op), space["signed"][op_name].get<bool>()) << op_name;
  for (size_t bin = 0; bin < table.size(); ++bin) {
    EXPECT_EQ(augment_magnitude(space_named(name), op, static_cast<int>(bin), space["bins"], height,
                                width),
              table[bin].get<double>())
        << name << " " << op_name << " bin " << bin << " on " << width << "x" << height;
  }
  return static_cast<int>(table.size());
}

TEST(AugmentPolicies, MagnitudeTablesAreTorchsFloat32ForEveryImageSize) {
  int compared = 0;
  for (const auto& [name, space] : golden()["spaces"].items()) {
    for (const auto& [op_name, table] : space["magnitudes"].items()) {
      compared += expect_table(name, space, op_name, table, space["height"], space["width"]);
    }
    for (const json& size : space["translate"]) {
      for (const char* op_name : {"TranslateX", "TranslateY"}) {
        compared +=
            expect_table(name, space, op_name, size[op_name], size["height"], size["width"]);
      }
    }
  }
  EXPECT_GT(compared, 600);
}

TEST(AugmentPolicies, OperationSetsAreTorchvisionsInItsOrder) {
  const json& ops = golden()["spaces"]["RandAugment"]["ops"];
  ASSERT_EQ(ops.size(), size_t{14});
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(augment_op_named(ops[i]), static_cast<AugmentOp>(i));  // TrivialAugmentWide's 14
  }
  const json& augmix = golden()["spaces"]["AugMix"]["ops"];
  ASSERT_EQ(augmix.size(), size_t{kAugMixOps});
  for (int i = 0; i < kAugMixOps; ++i) EXPECT_EQ(augment_op_named(augmix[i]), augmix_ops()[i]);
}

TEST(AugmentPolicies, ImageNetSubPoliciesAreTorchvisions) {
  const json& policies = golden()["imagenet_policy"];
  ASSERT_EQ(policies.size(), size_t{kImageNetSubPolicies});
  for (int i = 0; i < kImageNetSubPolicies; ++i) {
    for (int step = 0; step < 2; ++step) {
      const json& expected = policies[i][step];
      const AutoAugmentStep& actual = imagenet_sub_policies()[i][step];
      EXPECT_EQ(actual.op, augment_op_named(expected[0])) << "sub-policy " << i;
      EXPECT_EQ(actual.probability, expected[1].get<float>()) << "sub-policy " << i;
      EXPECT_EQ(actual.bin, expected[2].is_null() ? -1 : expected[2].get<int>())
          << "sub-policy " << i;
    }
  }
}

// Every operation, bin and sign of a policy's tables on each golden image, through `apply`.
using ApplyOp = cv::Mat (*)(const cv::Mat&, AugmentOp, double);

int expect_outputs(const std::string& policy, AugmentSpace space, int bins, ApplyOp apply) {
  int compared = 0;
  for (const json& image : golden()["images"]) {
    const cv::Mat rgb = testing::image_from_hex(image);
    for (const auto& [op_name, outputs] : image[policy].items()) {
      const AugmentOp op = augment_op_named(op_name);
      for (size_t bin = 0; bin < outputs.size(); ++bin) {
        const double magnitude =
            has_magnitude_bins(op)
                ? augment_magnitude(space, op, static_cast<int>(bin), bins, rgb.rows, rgb.cols)
                : 0.0;
        for (size_t sign = 0; sign < outputs[bin].size(); ++sign) {
          const double signed_magnitude = sign == 0 ? magnitude : -magnitude;
          EXPECT_EQ(fnv1a64(apply(rgb, op, signed_magnitude)),
                    outputs[bin][sign].get<std::string>())
              << policy << " " << op_name << " magnitude " << signed_magnitude << " on " << rgb.cols
              << "x" << rgb.rows;
          ++compared;
        }
      }
    }
  }
  return compared;
}

TEST(AugmentPolicies, RandAugmentAndAutoAugmentOperationsGiveTorchvisionsPilPixels) {
  EXPECT_GT(
      expect_outputs("RandAugment", AugmentSpace::kRandAugment, kRandAugmentBins, apply_augment_op),
      1000);
  EXPECT_GT(
      expect_outputs("AutoAugment", AugmentSpace::kRandAugment, kAutoAugmentBins, apply_augment_op),
      300);
  for (const json& image : golden()["images"]) {
    EXPECT_EQ(fnv1a64(apply_augment_op(testing::image_from_hex(image), AugmentOp::kInvert, 0)),
              image["invert"].get<std::string>());
  }
}

TEST(AugmentPolicies, AugMixOperationsGiveTorchvisionsTensorPixels) {
  EXPECT_GT(expect_outputs("AugMix", AugmentSpace::kAugMix, kAugMixBins, apply_tensor_augment_op),
            300);
}

TEST(AugmentPolicies, AugMixMixesAsTorchvisionForTheSameDraws) {
  const cv::Mat rgb = testing::image_from_hex(golden()["images"][0]);
  int applied = 0;
  for (const json& c : golden()["augmix"]) {
    AugMixDraws draws;
    draws.m = {c["m"][0].get<float>(), c["m"][1].get<float>()};
    for (int i = 0; i < kAugMixWidth; ++i) {
      draws.chain_weights[i] = c["chain_weights"][i].get<float>();
      for (const json& step : c["chains"][i]) {
        draws.chains[i].push_back({augment_op_named(step[0]), step[1].get<double>()});
        ++applied;
      }
    }
    EXPECT_EQ(fnv1a64(mix_augmix(rgb, draws)), c["output"].get<std::string>())
        << "severity " << c["severity"] << ", m " << draws.m[0] << " " << draws.m[1];
  }
  EXPECT_GT(applied, 40);
}

}  // namespace
}  // namespace xtrain
