#include "lib/train/checkpoint_metadata.h"

#include <gtest/gtest.h>

#include "lib/base/check.h"

namespace xtrain {
namespace {

constexpr int64_t kSteps = 10;  // per epoch

CheckpointInfo saved(int64_t epochs_done, int64_t global_step, double best_top1 = 50.0) {
  return checkpoint_info("resnet20", "{}", Precision::kFloat32, epochs_done, global_step,
                         RunProgress{best_top1, 0.0, {}});
}

TEST(CheckpointMetadata, AnEpochsEndGoesOnWithTheNextEpoch) {
  const ResumePoint p = resume_point(saved(2, 20), "ckpt", "resnet20", kSteps);
  EXPECT_EQ(p.first_epoch, 3);
  EXPECT_EQ(p.first_step, 0);
  EXPECT_EQ(p.global_step, 20);
  EXPECT_EQ(p.progress.best_top1, 50.0);
}

TEST(CheckpointMetadata, AMidEpochCheckpointGoesOnWithItsNextStep) {
  const ResumePoint p = resume_point(saved(2, 27), "ckpt", "resnet20", kSteps);
  EXPECT_EQ(p.first_epoch, 3);
  EXPECT_EQ(p.first_step, 7);
}

// A stop after an epoch's last step but before its test ended: the epoch is trained, not counted
// done, and its evaluation runs before the next epoch trains.
TEST(CheckpointMetadata, AStopBeforeAnEpochsTestEndedEvaluatesItFirst) {
  const ResumePoint p = resume_point(saved(2, 30), "ckpt", "resnet20", kSteps);
  EXPECT_EQ(p.first_epoch, 4);
  EXPECT_EQ(p.first_step, 0);
  EXPECT_TRUE(p.evaluation_pending);
}

TEST(CheckpointMetadata, NoEvaluationIsPendingAfterAnEpochsEndOrMidEpoch) {
  EXPECT_FALSE(resume_point(saved(2, 20), "ckpt", "resnet20", kSteps).evaluation_pending);
  EXPECT_FALSE(resume_point(saved(2, 27), "ckpt", "resnet20", kSteps).evaluation_pending);
}

TEST(CheckpointMetadata, RefusesWhatThisRunCouldNotHaveWritten) {
  EXPECT_THROW(resume_point(saved(2, 20), "ckpt", "resnet32", kSteps), Error);  // another model
  EXPECT_THROW(resume_point(saved(2, 45), "ckpt", "resnet20", kSteps), Error);  // other steps
  EXPECT_THROW(resume_point(saved(2, 20), "ckpt", "resnet20", 0), Error);
  EXPECT_THROW(resume_point(saved(kMaxEpochs + 1, 0), "ckpt", "resnet20", kSteps), Error);
  EXPECT_THROW(resume_point(saved(2, 20, 101.0), "ckpt", "resnet20", kSteps), Error);
  EXPECT_THROW(resume_point(saved(2, 20, -1.0), "ckpt", "resnet20", kSteps), Error);
}

TEST(CheckpointMetadata, ErrorsNameTheFile) {
  try {
    resume_point(saved(2, 45), "logs/checkpoint-last.safetensors", "resnet20", kSteps);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("logs/checkpoint-last.safetensors"), std::string::npos);
  }
}

}  // namespace
}  // namespace xtrain
