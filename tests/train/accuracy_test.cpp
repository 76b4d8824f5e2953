// Top-k counting: ties go to the lower class index, and a row with a NaN or an infinity is
// never correct (compared with NaN nothing is larger, so it would rank any label first).
#include "lib/train/accuracy.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace xtrain {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(Accuracy, CountsLabelsAmongTheKHighest) {
  const std::vector<float> logits = {0.1f, 0.7f, 0.2f,   // predicts 1
                                     0.5f, 0.5f, 0.0f};  // a tie: predicts 0
  const std::vector<int32_t> labels = {2, 1};
  EXPECT_EQ(count_top_k_correct(logits.data(), labels.data(), 2, 3, 1), 0);
  EXPECT_EQ(count_top_k_correct(logits.data(), labels.data(), 2, 3, 2), 2);
  EXPECT_EQ(count_nonfinite_rows(logits.data(), 2, 3), 0);
}

TEST(Accuracy, ARowWithNaNIsWrongForEveryK) {
  const std::vector<float> logits = {kNaN, kNaN, kNaN,   // all NaN
                                     0.9f, kNaN, 0.1f,   // one NaN, on another class
                                     kNaN, 0.3f, 0.2f,   // NaN on the label
                                     0.1f, 0.8f, 0.1f};  // finite and right
  const std::vector<int32_t> labels = {0, 0, 0, 1};
  for (int k : {1, 2, 3}) {
    EXPECT_EQ(count_top_k_correct(logits.data(), labels.data(), 4, 3, k), 1) << "k=" << k;
  }
  EXPECT_EQ(count_nonfinite_rows(logits.data(), 4, 3), 3);
}

TEST(Accuracy, ARowWithAnInfinityIsWrong) {
  const std::vector<float> logits = {kInf, 0.0f,  0.0f,   // +inf on the label
                                     0.0f, -kInf, 0.0f};  // -inf elsewhere
  const std::vector<int32_t> labels = {0, 0};
  EXPECT_EQ(count_top_k_correct(logits.data(), labels.data(), 2, 3, 1), 0);
  EXPECT_EQ(count_top_k_correct(logits.data(), labels.data(), 2, 3, 3), 0);
  EXPECT_EQ(count_nonfinite_rows(logits.data(), 2, 3), 2);
}

TEST(Accuracy, AllFinite) {
  const std::vector<float> finite = {0.0f, -1e38f, 3.4e38f};
  EXPECT_TRUE(all_finite(finite.data(), 3));
  for (float bad : {kNaN, kInf, -kInf}) {
    std::vector<float> values = finite;
    values[1] = bad;
    EXPECT_FALSE(all_finite(values.data(), 3));
  }
}

}  // namespace
}  // namespace xtrain
