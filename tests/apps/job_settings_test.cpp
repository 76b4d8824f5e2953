// The settings a job's processes must share: which flags count (parsed values, not spellings;
// not the loader's threads), their text surviving any bytes of a path, and the one-line message
// that names the first flag the processes disagree on.
#include "apps/job_settings.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/apps/flag_parsing.h"

namespace xtrain {
namespace {

JobSettings settings_of(const std::vector<std::string>& args) {
  TrainFlags flags;
  const testing::ParseOutcome o = testing::run_parser(&parse_train_flags, "train", args, &flags);
  EXPECT_TRUE(o.ok) << o.err;
  return job_settings(flags);
}

const std::vector<std::string> kRun = {"--model=resnet20", "--fake_data", "--lr=0.1"};

std::string disagreement(const std::vector<std::string>& extra_first,
                         const std::vector<std::string>& extra_mine) {
  std::vector<std::string> first = kRun, mine = kRun;
  first.insert(first.end(), extra_first.begin(), extra_first.end());
  mine.insert(mine.end(), extra_mine.begin(), extra_mine.end());
  return settings_disagreement(settings_of(first), settings_of(mine), 3);
}

TEST(JobSettings, TheFirstDifferentFlagIsNamedWithBothRanksAndValues) {
  EXPECT_EQ(disagreement({}, {"--lr=0.2"}),
            "the job's processes disagree on --lr: rank 0 has 0.1, rank 3 has 0.2");
  EXPECT_EQ(disagreement({"--seed=1", "--batch_size=8"}, {"--seed=2", "--batch_size=16"}),
            "the job's processes disagree on --batch_size: rank 0 has 8, rank 3 has 16")
      << "--help's order: batches before the seed";
  EXPECT_EQ(disagreement({}, {"--logdir=/tmp/a"}),
            "the job's processes disagree on --logdir: rank 0 has none, rank 3 has /tmp/a");
  EXPECT_EQ(disagreement({"--model=resnet18"}, {}),
            "the job's processes disagree on --model: rank 0 has resnet18, rank 3 has resnet20");
  EXPECT_EQ(disagreement({"--num_steps=5"}, {"--num_steps=6"}),
            "the job's processes disagree on --num_steps: rank 0 has 5, rank 3 has 6");
  EXPECT_EQ(disagreement({"--image_size=28"}, {"--image_size=32"}),
            "the job's processes disagree on --train_crop_size (or --image_size): rank 0 has 28, "
            "rank 3 has 32");
  EXPECT_EQ(disagreement({"--val_crop_size=28"}, {"--val_crop_size=32"}),
            "the job's processes disagree on --val_crop_size (or --image_size): rank 0 has 28, "
            "rank 3 has 32");
  EXPECT_EQ(disagreement({"--interpolation=bicubic"}, {}),
            "the job's processes disagree on --interpolation: rank 0 has bicubic, rank 3 has "
            "bilinear");
}

TEST(JobSettings, TorchvisionsScheduleCounts) {
  const std::vector<std::string> multistep = {"--lr_scheduler=multisteplr", "--num_epochs=9"};
  std::vector<std::string> first = multistep, mine = multistep;
  first.push_back("--lr_milestones=3,5");
  mine.push_back("--lr_milestones=3,6");
  EXPECT_EQ(disagreement(first, mine),
            "the job's processes disagree on --lr_milestones: rank 0 has 3,5, rank 3 has 3,6");
  EXPECT_EQ(disagreement({"--lr_scheduler=steplr"}, {}),
            "the job's processes disagree on --lr_scheduler: rank 0 has steplr, rank 3 has none");
}

TEST(JobSettings, SpellingsAndMachineSettingsDoNotCount) {
  EXPECT_EQ(disagreement({"--lr=0.10", "--seed", "7"}, {"--lr", "1e-1", "--seed=7"}), "");
  EXPECT_EQ(disagreement({"--num_workers=1", "--num_cores=1", "--prefetch_factor=2"},
                         {"--num_workers=3", "--num_cores=2", "--loader_prefetch_size=5"}),
            "");
}

TEST(JobSettings, XlaUseBf16CountsAsBf16) {
  ::setenv("XLA_USE_BF16", "1", 1);
  const JobSettings from_environment = settings_of(kRun);
  ::unsetenv("XLA_USE_BF16");
  std::vector<std::string> bf16 = kRun;
  bf16.push_back("--bf16");
  EXPECT_EQ(settings_disagreement(from_environment, settings_of(bf16), 1), "");
  EXPECT_EQ(settings_disagreement(from_environment, settings_of(kRun), 1),
            "the job's processes disagree on --bf16 (or XLA_USE_BF16): rank 0 has true, rank 1 "
            "has false");
}

TEST(JobSettings, TextKeepsEveryByteOfAPath) {
  std::vector<std::string> args = kRun;
  args.push_back(std::string("--logdir=/tmp/a\nb\xff c=d"));
  const JobSettings settings = settings_of(args);
  const JobSettings back = settings_from_text(settings_text(settings));
  ASSERT_EQ(back.size(), settings.size());
  for (size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].flag, settings[i].flag);
    EXPECT_EQ(back[i].value, settings[i].value);
  }
  EXPECT_EQ(settings_disagreement(settings, back, 1), "");
}

TEST(JobSettings, ADifferentBuildIsSaidAsSuch) {
  JobSettings first = settings_of(kRun);
  JobSettings mine = first;
  mine.pop_back();
  const std::string expected =
      "the job's processes run different builds of train: rank 0 and rank 2 know other flags "
      "(every machine needs the same build)";
  EXPECT_EQ(settings_disagreement(first, mine, 2), expected);
  mine = first;
  mine[0].flag = "--architecture";
  EXPECT_EQ(settings_disagreement(first, mine, 2), expected);
}

TEST(JobSettings, AProcessAloneHasNothingToCompare) {
  TrainFlags flags;
  EXPECT_NO_THROW(check_job_settings(flags, ProcessGroup::alone()));
}

}  // namespace
}  // namespace xtrain
