// TrivialAugmentWide's operations against torchvision's on PIL images: every operation, magnitude
// bin and sign it can draw, applied to the two images of tests/golden/trivial_augment.json
// (scripts/make_augment_golden.py), must give torchvision's pixels to the bit (compared as
// FNV-1a hashes of the bytes), and the magnitude tables must be torchvision's float32 values.
#include <gtest/gtest.h>

#include <string>

#include "data/augment_magnitudes.h"
#include "data/augment_ops.h"
#include "data/trivial_augment.h"
#include "tests/data/augment_golden.h"
#include "tests/models/golden_file.h"

namespace xtrain {
namespace {

using json = nlohmann::json;
using testing::kAugmentOpNames;

double ta_magnitude(AugmentOp op, int bin) {
  return augment_magnitude(AugmentSpace::kTrivialAugmentWide, op, bin, kTrivialAugmentBins, 0, 0);
}

TEST(TrivialAugment, OperationsAreTorchvisionsInItsOrder) {
  const json golden = testing::load_golden_file("trivial_augment.json");
  ASSERT_EQ(golden["ops"].size(), size_t{kTrivialAugmentOps});
  for (int op = 0; op < kTrivialAugmentOps; ++op) {
    EXPECT_EQ(golden["ops"][op], kAugmentOpNames[op]);
    EXPECT_EQ(golden["signed"][kAugmentOpNames[op]],
              has_signed_magnitude(static_cast<AugmentOp>(op)))
        << kAugmentOpNames[op];
  }
}

TEST(TrivialAugment, MagnitudesAreTorchvisionsFloat32Tables) {
  const json golden = testing::load_golden_file("trivial_augment.json");
  for (int op = 0; op < kTrivialAugmentOps; ++op) {
    const json& table = golden["magnitudes"][kAugmentOpNames[op]];
    const AugmentOp augment_op = static_cast<AugmentOp>(op);
    EXPECT_EQ(has_magnitude_bins(augment_op), !table.empty()) << kAugmentOpNames[op];
    for (size_t bin = 0; bin < table.size(); ++bin) {
      EXPECT_EQ(ta_magnitude(augment_op, static_cast<int>(bin)), table[bin].get<double>())
          << kAugmentOpNames[op] << " bin " << bin;
    }
  }
}

TEST(TrivialAugment, EveryOperationGivesTorchvisionsPixels) {
  const json golden = testing::load_golden_file("trivial_augment.json");
  int compared = 0;
  for (const json& image : golden["images"]) {
    const cv::Mat rgb = testing::image_from_hex(image);
    for (int op = 0; op < kTrivialAugmentOps; ++op) {
      const AugmentOp augment_op = static_cast<AugmentOp>(op);
      const json& bins = image["outputs"][kAugmentOpNames[op]];
      for (size_t bin = 0; bin < bins.size(); ++bin) {
        const double magnitude = ta_magnitude(augment_op, static_cast<int>(bin));
        for (size_t sign = 0; sign < bins[bin].size(); ++sign) {
          const cv::Mat out = apply_augment_op(rgb, augment_op, sign == 0 ? magnitude : -magnitude);
          EXPECT_EQ(testing::fnv1a64(out), bins[bin][sign].get<std::string>())
              << kAugmentOpNames[op] << " magnitude " << (sign == 0 ? magnitude : -magnitude)
              << " on " << rgb.cols << "x" << rgb.rows;
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 1000);
}

}  // namespace
}  // namespace xtrain
