// The training transform's extras (--auto_augment and its policies' parameters, --random_erase):
// each policy acts on the recipe's own pixels with draws that follow the recipe's,
// RandomErasing's box is drawn last, the same Rng gives the same pixels and box, the test
// transform takes no extras, and bad values are refused naming their flag.
#include <gtest/gtest.h>

#include <vector>

#include "data/augmix.h"
#include "data/auto_augment.h"
#include "data/rand_augment.h"
#include "data/transforms.h"
#include "data/trivial_augment.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

constexpr int kSize = 24;

// A 40 x 30 image of varied pixels, so that every crop, flip and operation shows.
cv::Mat varied_image() {
  cv::Mat image(30, 40, CV_8UC3);
  for (int y = 0; y < image.rows; ++y) {
    for (int x = 0; x < image.cols; ++x) {
      image.at<cv::Vec3b>(y, x) = cv::Vec3b(7 * x + y, 3 * y + 50, (x * y) % 200 + 20);
    }
  }
  return image;
}

struct Sample {
  std::vector<uint8_t> pixels = std::vector<uint8_t>(kSize * kSize * 3);
  EraseBox erase;
};

Sample run(const Transform& transform, Rng& rng) {
  Sample s;
  s.erase = transform(varied_image(), rng, s.pixels.data());
  return s;
}

// The policy the extras name, with their parameters, as the data/ policies apply it.
cv::Mat apply_policy(const TrainExtras& extras, const cv::Mat& pixels, Rng& rng) {
  if (extras.auto_augment == "ta_wide") {
    const AugmentChoice choice = draw_trivial_augment(rng);
    return apply_augment_op(pixels, choice.op, choice.magnitude);
  }
  if (extras.auto_augment == "ra") return rand_augment(pixels, extras.ra_magnitude, rng);
  if (extras.auto_augment == "augmix") return augmix(pixels, extras.augmix_severity, rng);
  return auto_augment_imagenet(pixels, rng);
}

TEST(TrainExtras, EveryPolicyActsOnTheRecipesPixelsWithTheNextDraws) {
  TrainExtras ra{"ra", 0}, augmix_5{"augmix", 0};
  ra.ra_magnitude = 23;
  augmix_5.augmix_severity = 5;
  for (const TrainExtras& extras :
       {TrainExtras{"ta_wide", 0}, ra, augmix_5, TrainExtras{"imagenet", 0}}) {
    for (const char* augment : {"imagenet", "cifar"}) {
      const Transform plain = make_transform(augment, /*train=*/true, kSize);
      const Transform policy = make_transform(augment, true, kSize, extras);
      int changed = 0;
      for (uint64_t key = 0; key < 40; ++key) {
        Rng rng({key}), rng_policy({key});
        const Sample before = run(plain, rng);  // leaves rng where the policy draws
        const cv::Mat expected = apply_policy(
            extras, cv::Mat(kSize, kSize, CV_8UC3, const_cast<uint8_t*>(before.pixels.data())),
            rng);
        const Sample after = run(policy, rng_policy);
        ASSERT_TRUE(expected.isContinuous());
        EXPECT_EQ(after.pixels, std::vector<uint8_t>(expected.datastart, expected.dataend))
            << extras.auto_augment << " " << augment << " key " << key;
        EXPECT_TRUE(after.erase.empty());
        EXPECT_EQ(rng.next_u64(), rng_policy.next_u64()) << "the same draws, in the same order";
        changed += after.pixels != before.pixels;
      }
      EXPECT_GT(changed, 20) << extras.auto_augment << " " << augment;
    }
  }
}

TEST(TrainExtras, RandomErasingIsDrawnLastAndLeavesThePixels) {
  const Transform ta = make_transform("imagenet", true, kSize, TrainExtras{"ta_wide", 0});
  const Transform erasing = make_transform("imagenet", true, kSize, TrainExtras{"ta_wide", 1.0});
  int erased = 0;
  for (uint64_t key = 0; key < 40; ++key) {
    Rng rng({key}), rng_erasing({key});
    const Sample pixels_only = run(ta, rng);
    const Sample with_box = run(erasing, rng_erasing);
    EXPECT_EQ(with_box.pixels, pixels_only.pixels) << "the box is zeroed after Normalize";
    Rng expected_rng = rng;
    const EraseBox expected = random_erasing_box(kSize, kSize, 1.0, expected_rng);
    EXPECT_EQ(with_box.erase.top, expected.top);
    EXPECT_EQ(with_box.erase.left, expected.left);
    EXPECT_EQ(with_box.erase.height, expected.height);
    EXPECT_EQ(with_box.erase.width, expected.width);
    EXPECT_EQ(with_box.erase.image_width, expected.empty() ? 0 : kSize);
    erased += !with_box.erase.empty();
  }
  EXPECT_GT(erased, 30);
}

TEST(TrainExtras, TheSameRngGivesTheSamePixelsAndBox) {
  for (const char* policy : {"ta_wide", "ra", "augmix", "imagenet"}) {
    const Transform transform = make_transform("imagenet", true, kSize, TrainExtras{policy, 0.5});
    int differing = 0;
    for (uint64_t key = 0; key < 20; ++key) {
      Rng a({3, key}), b({3, key}), other({4, key});
      const Sample first = run(transform, a), second = run(transform, b);
      EXPECT_EQ(first.pixels, second.pixels) << "key " << key;
      EXPECT_EQ(first.erase.top, second.erase.top);
      EXPECT_EQ(first.erase.left, second.erase.left);
      EXPECT_EQ(first.erase.height, second.erase.height);
      EXPECT_EQ(first.erase.width, second.erase.width);
      differing += run(transform, other).pixels != first.pixels;
    }
    EXPECT_GT(differing, 15) << policy << ": another seed, other samples";
  }
}

TEST(TrainExtras, TheTestTransformTakesNone) {
  for (const char* augment : {"imagenet", "cifar"}) {
    const Transform plain = make_transform(augment, /*train=*/false, kSize);
    const Transform extras = make_transform(augment, false, kSize, TrainExtras{"ta_wide", 1.0});
    Rng rng({1}), rng_extras({1});
    const Sample a = run(plain, rng), b = run(extras, rng_extras);
    EXPECT_EQ(a.pixels, b.pixels) << augment;
    EXPECT_TRUE(b.erase.empty()) << augment;
  }
}

TEST(TrainExtras, BadValuesAreRefusedNamingTheFlag) {
  EXPECT_NE(testing::error_of([] {
              make_transform("imagenet", true, kSize, {"rand-m9", 0});
            }).find("--auto_augment: expected ta_wide, ra, augmix or imagenet, got 'rand-m9'"),
            std::string::npos);
  EXPECT_NE(testing::error_of([] {
              make_transform("imagenet", true, kSize, {"", 1.5});
            }).find("--random_erase"),
            std::string::npos);
  TrainExtras ra{"ra", 0}, augmix_0{"augmix", 0};
  ra.ra_magnitude = 31;
  augmix_0.augmix_severity = 0;
  EXPECT_NE(testing::error_of([&] {
              make_transform("imagenet", true, kSize, ra);
            }).find("--ra_magnitude: expected an integer from 0 to 30, got 31"),
            std::string::npos);
  EXPECT_NE(testing::error_of([&] {
              make_transform("imagenet", true, kSize, augmix_0);
            }).find("--augmix_severity: expected an integer from 1 to 10, got 0"),
            std::string::npos);
}

}  // namespace
}  // namespace xtrain
