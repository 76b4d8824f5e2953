// GradNormClip as torch.nn.utils.clip_grad_norm_: the total norm over every tensor, a scale of
// max_norm / (total + 1e-6) where that is below 1, nothing otherwise.
#include "lib/optim/grad_clip.h"

#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace xtrain {
namespace {

const std::vector<ParamTensor> kTensors = {ParamTensor{0, 2}, ParamTensor{2, 1}};

TEST(GradClip, ScalesDownToTheNormOverEveryTensor) {
  std::vector<float> grads = {3.0f, 4.0f, 12.0f};  // norms 5 and 12: total 13
  EXPECT_DOUBLE_EQ(GradNormClip(6.5f).clip(grads.data(), kTensors, Exec{}), 13.0);
  const float scale = static_cast<float>(6.5 / (13.0 + 1e-6));
  testing::expect_close(grads, {3.0f * scale, 4.0f * scale, 12.0f * scale}, 0.0f, 0.0f, "grads");
}

TEST(GradClip, LeavesSmallGradientsAlone) {
  std::vector<float> grads = {3.0f, 4.0f, 12.0f};
  EXPECT_DOUBLE_EQ(GradNormClip(13.5f).clip(grads.data(), kTensors, Exec{}), 13.0);
  EXPECT_EQ(grads, (std::vector<float>{3.0f, 4.0f, 12.0f}));
}

TEST(GradClip, OneAndTwoThreadsAreBitwiseEqual) {
  const std::vector<ParamTensor> tensors = {ParamTensor{0, 40000}, ParamTensor{40000, 3},
                                            ParamTensor{40003, 50000}};
  std::vector<float> one = testing::random_floats(90003, 9), two = one;
  testing::PoolExec pool(2);
  GradNormClip clip(1.0f);
  EXPECT_EQ(clip.clip(one.data(), tensors, Exec{}), clip.clip(two.data(), tensors, pool.exec()));
  EXPECT_EQ(one, two);
}

}  // namespace
}  // namespace xtrain
