// Helpers of the augmentation golden tests: torchvision's operation names, images from the
// golden files' hex and the FNV-1a 64-bit hash the generators store outputs as
// (scripts/make_augment_golden.py, scripts/make_augment_policies_golden.py; the Python twins are
// scripts/golden_hashes.py).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <string>

#include "data/augment_ops.h"

namespace xtrain::testing {

// _apply_op's name of each AugmentOp, in the enum's order.
inline const char* const kAugmentOpNames[kNumAugmentOps] = {
    "Identity",  "ShearX",     "ShearY",       "TranslateX", "TranslateY",
    "Rotate",    "Brightness", "Color",        "Contrast",   "Sharpness",
    "Posterize", "Solarize",   "AutoContrast", "Equalize",   "Invert"};

inline AugmentOp augment_op_named(const std::string& name) {
  for (int op = 0; op < kNumAugmentOps; ++op) {
    if (name == kAugmentOpNames[op]) return static_cast<AugmentOp>(op);
  }
  ADD_FAILURE() << "no operation " << name;
  return AugmentOp::kIdentity;
}

inline const char* name_of(AugmentOp op) { return kAugmentOpNames[static_cast<int>(op)]; }

inline std::string fnv1a64(const cv::Mat& rgb) {
  uint64_t h = 0xcbf29ce484222325ull;
  const uint8_t* p = rgb.ptr<uint8_t>();
  for (size_t i = 0; i < rgb.total() * rgb.elemSize(); ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

inline cv::Mat image_from_hex(const nlohmann::json& image) {
  const std::string hex = image["pixels"];
  cv::Mat rgb(image["height"].get<int>(), image["width"].get<int>(), CV_8UC3);
  EXPECT_EQ(hex.size(), 2 * rgb.total() * 3);
  uint8_t* p = rgb.ptr<uint8_t>();
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    p[i / 2] = static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return rgb;
}

}  // namespace xtrain::testing
