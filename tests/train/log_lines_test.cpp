// The lines a run prints before its first step: what it takes of memory and what it will do.
#include "lib/train/log_lines.h"

#include <gtest/gtest.h>

namespace xtrain {
namespace {

constexpr size_t kMiB = size_t{1} << 20, kGiB = size_t{1} << 30;

TEST(LogLines, MemorySizesAreMegabytesBelowAGigabyte) {
  EXPECT_EQ(memory_size(80 * kMiB), "80 MB");
  EXPECT_EQ(memory_size(2 * kGiB), "2.0 GB");
  EXPECT_EQ(memory_size(size_t(9.8 * kGiB)), "9.8 GB");
}

TEST(LogLines, MemoryLine) {
  EXPECT_EQ(memory_line(2, size_t(9.8 * kGiB), 128, Precision::kFloat32, 0, size_t(19.64 * kGiB),
                        size_t(22.9 * kGiB)),
            "Memory: 2 cores x 9.8 GB (batch 128, float32) = 19.6 GB of 22.9 GB available");
  EXPECT_EQ(memory_line(1, 60 * kMiB, 8, Precision::kBFloat16, 0, 124 * kMiB, std::nullopt),
            "Memory: 1 core x 60 MB (batch 8, bfloat16) = 124 MB, available memory unknown");
}

TEST(LogLines, MemoryLineNamesTheCachedImages) {
  EXPECT_EQ(memory_line(2, size_t(9.8 * kGiB), 128, Precision::kFloat32, 141 * kMiB,
                        size_t(19.78 * kGiB), size_t(22.9 * kGiB)),
            "Memory: 2 cores x 9.8 GB (batch 128, float32) + 141 MB of decoded images = 19.8 GB "
            "of 22.9 GB available");
}

TEST(LogLines, ModelLineSaysThePrecision) {
  EXPECT_EQ(
      model_line("resnet50", 25557032, 4089184256, 224, precision_text(Precision::kFloat32, true)),
      "Model resnet50: 25,557,032 parameters, 4.09 GMACs per image at 224x224, float32");
  EXPECT_EQ(precision_text(Precision::kBFloat16, true), "bfloat16 multiplies on AVX512_BF16");
  EXPECT_EQ(precision_text(Precision::kBFloat16, false),
            "bfloat16 multiplies, emulated (no AVX512_BF16 in this build: slower than float32)");
}

TEST(LogLines, CappedCoresAndDoesNotFit) {
  EXPECT_EQ(cores_capped_line(1, 2, 128, size_t(29.4 * kGiB), size_t(22.9 * kGiB)),
            "Note: using 1 of 2 cores: 2 cores x batch 128 need 29.4 GB, 22.9 GB is available");
  EXPECT_EQ(does_not_fit_message(3, 128, size_t(29.4 * kGiB), size_t(22.9 * kGiB), 80, 2),
            "3 cores x batch 128 need 29.4 GB; 22.9 GB is available: use --batch_size=80 or "
            "--num_cores=2");
  EXPECT_EQ(does_not_fit_message(1, 128, 11 * kGiB, 2 * kGiB, 11, 0),
            "1 core x batch 128 need 11.0 GB; 2.0 GB is available: use --batch_size=11");
  EXPECT_EQ(does_not_fit_message(2, 128, 11 * kGiB, 2 * kGiB, 0, 1),
            "2 cores x batch 128 need 11.0 GB; 2.0 GB is available: use --num_cores=1");
}

// --cache_dataset's share is named, and leaving it out is advised where the rest fits.
TEST(LogLines, DoesNotFitNamesTheCache) {
  EXPECT_EQ(does_not_fit_message(2, 128, 11 * kGiB, 2 * kGiB, 20, 1, 10 * kGiB),
            "2 cores x batch 128 need 11.0 GB, --cache_dataset's decoded images 10.0 GB of it; "
            "2.0 GB is available: use --batch_size=20 or --num_cores=1 or leave out "
            "--cache_dataset");
  EXPECT_EQ(does_not_fit_message(1, 128, 11 * kGiB, 2 * kGiB, 0, 0, 10 * kGiB),
            "1 core x batch 128 need 11.0 GB, --cache_dataset's decoded images 10.0 GB of it; "
            "2.0 GB is available: leave out --cache_dataset");
  EXPECT_EQ(does_not_fit_message(1, 128, 11 * kGiB, 2 * kGiB, 0, 0, 1 * kGiB),
            "1 core x batch 128 need 11.0 GB, --cache_dataset's decoded images 1.0 GB of it; "
            "2.0 GB is available: not even batch 1 fits on 1 core");
}

TEST(LogLines, ModelEmaTestLineFollowsTheModelsAndKeepsItsGrepApart) {
  EXPECT_EQ(epoch_test_end_line(3, "07:41:10", 75.5), "Epoch 3 test end 07:41:10, Accuracy=75.50");
  EXPECT_EQ(epoch_test_ema_end_line(3, "07:41:12", 76.25),
            "Epoch 3 test (EMA) end 07:41:12, Accuracy=76.25");
}

TEST(LogLines, RunLine) {
  RunOutline run;
  run.num_epochs = 18;
  run.steps_per_epoch = 10;
  run.num_cores = 2;
  run.batch_size = 32;
  run.test_batches = 2;
  run.test_set_batch_size = 64;
  EXPECT_EQ(run_line(run),
            "Run: 18 epochs x 10 steps x 2 cores x 32 images (global batch 64), test 2 batches "
            "per core per epoch");
  run.num_epochs = 1;
  run.steps_per_epoch = 1;
  run.num_cores = 1;
  run.test_batches = 390;
  run.all_test_batches = true;
  EXPECT_EQ(run_line(run),
            "Run: 1 epoch x 1 step x 1 core x 32 images (global batch 32), test all 390 batches "
            "per core per epoch");
  run.first_epoch = 3;
  run.num_epochs = 18;
  run.test_only_at_end = true;
  EXPECT_EQ(run_line(run),
            "Run: epochs 3 to 18 x 1 step x 1 core x 32 images (global batch 32), test all 390 "
            "batches per core after the last epoch");
  run.evaluate = true;
  run.num_cores = 2;
  EXPECT_EQ(run_line(run),
            "Run: evaluate all 390 batches x 2 cores x 64 images (global batch 128)");
}

TEST(LogLines, TimeToTop1SaysWhenOrThatItWasNotReached) {
  EXPECT_EQ(time_to_top1_line(92.0, Top1Milestone{5, 92.31, 1234.54}),
            "Time to 92.00% top-1: 1234.5 s (epoch 5)");
  EXPECT_EQ(time_to_top1_line(95.0, std::nullopt), "Time to 95.00% top-1: not reached");
}

}  // namespace
}  // namespace xtrain
