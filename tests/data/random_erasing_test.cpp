// RandomErasing's draws and erasure: the box keeps to torchvision's area and aspect ranges and
// fits strictly inside, p = 0 draws nothing, and erase_box zeroes exactly the box in the
// normalized floats (float32 and bfloat16), as F.erase with value 0 does after Normalize.
#include "data/random_erasing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace xtrain {
namespace {

TEST(RandomErasing, BoxesKeepToTorchvisionsScaleAndRatioAndFitInside) {
  const int height = 64, width = 48;
  int erased = 0;
  for (uint64_t key = 0; key < 2000; ++key) {
    Rng rng({key});
    const EraseBox box = random_erasing_box(height, width, 1.0, rng);
    if (box.empty()) continue;  // every try missed: torchvision leaves the image as it is
    ++erased;
    EXPECT_EQ(box.image_width, width);
    EXPECT_LT(box.height, height);
    EXPECT_LT(box.width, width);
    EXPECT_GE(box.top, 0);
    EXPECT_GE(box.left, 0);
    EXPECT_LE(box.top + box.height, height);
    EXPECT_LE(box.left + box.width, width);
    // Rounding each side to a whole pixel moves the area and the ratio by at most half a pixel
    // per side; these bounds allow for that and no more.
    const double area = double(box.height) * box.width / (height * width);
    EXPECT_GE(area, 0.02 * 0.7) << box.height << "x" << box.width;
    EXPECT_LE(area, 0.33 * 1.1) << box.height << "x" << box.width;
    const double ratio = double(box.height) / box.width;
    EXPECT_GE(ratio, 0.3 * 0.75) << box.height << "x" << box.width;
    EXPECT_LE(ratio, 3.3 / 0.75) << box.height << "x" << box.width;
  }
  // A box fits in most tries at this size, so nearly every image is erased at p = 1.
  EXPECT_GT(erased, 1900);
}

TEST(RandomErasing, ProbabilityDecidesAndZeroDrawsNothingMore) {
  int erased = 0;
  for (uint64_t key = 0; key < 4000; ++key) {
    Rng rng({key});
    erased += !random_erasing_box(32, 32, 0.25, rng).empty();
  }
  EXPECT_NEAR(erased / 4000.0, 0.25, 0.03);  // about four standard deviations
  Rng drawn({7}), fresh({7});
  EXPECT_TRUE(random_erasing_box(32, 32, 0.0, drawn).empty());
  fresh.next_u64();  // the coin alone
  EXPECT_EQ(drawn.next_u64(), fresh.next_u64());
}

TEST(RandomErasing, ZeroesExactlyTheBoxInEitherPrecision) {
  const int height = 5, width = 4;
  EraseBox box;
  box.top = 1, box.left = 2, box.height = 3, box.width = 2, box.image_width = width;
  std::vector<float> floats(height * width * 3, -1.5f);
  std::vector<BFloat16> halves(floats.size(), to_bfloat16(-1.5f));
  erase_box(box, floats.data());
  erase_box(box, halves.data());
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const bool inside = y >= 1 && y < 4 && x >= 2;
      for (int c = 0; c < 3; ++c) {
        const size_t i = (size_t(y) * width + x) * 3 + c;
        EXPECT_EQ(floats[i], inside ? 0.0f : -1.5f) << y << "," << x;
        if (inside) {
          EXPECT_FALSE(std::signbit(floats[i])) << "+0, as torch writes it";
        }
        EXPECT_EQ(to_float(halves[i]), inside ? 0.0f : -1.5f) << y << "," << x;
      }
    }
  }
  erase_box(EraseBox{}, floats.data());  // an empty box changes nothing
  EXPECT_EQ(floats[0], -1.5f);
}

}  // namespace
}  // namespace xtrain
