// train's flag parser as a hostile user meets it: every value checked as written (finite, in
// range, the flag's type), "--flag=" never swallowing the next argument, the flags recorded as
// valid JSON whatever their bytes, and never anything but a clean parse or one line and exit 2.
#include "apps/train_flags.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "lib/optim/torchvision_lr_schedule.h"
#include "models/registry.h"
#include "tests/apps/flag_parsing.h"
#include "tests/base/unescape_bytes.h"

namespace xtrain {
namespace {

using testing::expect_one_line_error;
using testing::ParseOutcome;

ParseOutcome parse(const std::vector<std::string>& args, TrainFlags* flags) {
  return testing::run_parser(&parse_train_flags, "train", args, flags);
}

// args must be refused in one line that names `flag`.
void expect_rejected(const std::string& flag, std::vector<std::string> args) {
  args.insert(args.begin(), "--fake_data");
  TrainFlags flags;
  const ParseOutcome o = parse(args, &flags);
  const std::string context = ::testing::PrintToString(args);
  expect_one_line_error(o, "train", context);
  EXPECT_NE(o.err.find(flag), std::string::npos) << context << ": " << o.err;
}

TEST(TrainFlags, FloatsMustBeFiniteAndInRange) {
  expect_rejected("--lr", {"--lr=inf"});
  expect_rejected("--lr", {"--lr=1e39"});  // finite as a double, infinite as the float it is
  expect_rejected("--lr", {"--lr=nan"});
  expect_rejected("--momentum", {"--momentum=nan"});
  expect_rejected("--weight_decay", {"--weight_decay=-inf"});
  expect_rejected("--label_smoothing", {"--label_smoothing=nan"});
  expect_rejected("--label_smoothing", {"--label_smoothing=1.5"});
  expect_rejected("--num_warmup_epochs", {"--num_warmup_epochs=inf"});
  expect_rejected("--num_warmup_epochs", {"--num_warmup_epochs=1e30"});
  expect_rejected("--lr_scheduler_divisor", {"--lr_scheduler_divisor=inf"});
  expect_rejected("--lr_scheduler_divisor", {"--lr_scheduler_divisor=1e-50"});  // 0 as a float
  expect_rejected("--target_accuracy", {"--target_accuracy=nan"});
  expect_rejected("--target_accuracy", {"--target_accuracy=100.5"});
  expect_rejected("--target_accuracy", {"--target_accuracy=-1"});
}

// As Python's float() reads them: decimal only, and a value no float holds is refused rather
// than rounded to 0 or to infinity.
TEST(TrainFlags, FloatsAreDecimalAndNeverRoundedAway) {
  expect_rejected("--lr: expected a finite number >= 0, got '0x10'", {"--lr=0x10"});
  expect_rejected("--momentum", {"--momentum=0X1p-2"});
  expect_rejected("--lr: expected a finite number >= 0, got '1e-400', out of range",
                  {"--lr=1e-400"});
  expect_rejected("--lr", {"--lr=1e-40"});  // a subnormal float: most of its digits lost
  expect_rejected("--weight_decay", {"--weight_decay=1e-50"});
  expect_rejected("--target_accuracy", {"--target_accuracy=1e-39"});
  expect_rejected("--lr", {"--lr=1e400"});
  TrainFlags flags;
  ASSERT_TRUE(
      parse({"--fake_data", "--lr=+5e-3", "--weight_decay=1E-4", "--momentum=-0"}, &flags).ok);
  EXPECT_FLOAT_EQ(flags.trainer.lr_schedule.lr, 0.005f);
  EXPECT_FLOAT_EQ(flags.trainer.optimizer.weight_decay, 1e-4f);
}

// Switches take what XLA_USE_BF16 takes, no more: CLI11 alone reads --bf16=2 or --bf16=yes as on.
TEST(TrainFlags, SwitchesTakeOneZeroTrueOrFalse) {
  expect_rejected("--bf16: expected 1, 0, true or false, got '2'", {"--bf16=2"});
  expect_rejected("--bf16", {"--bf16=yes"});
  expect_rejected("--drop_last", {"--drop_last=on"});
  expect_rejected("--nesterov", {"--nesterov=-1"});
  for (const std::string value : {"1", "true"}) {
    TrainFlags flags;
    ASSERT_TRUE(parse({"--fake_data", "--bf16=" + value, "--nesterov=" + value}, &flags).ok);
    EXPECT_EQ(flags.trainer.precision, Precision::kBFloat16) << value;
    EXPECT_TRUE(flags.trainer.optimizer.nesterov) << value;
  }
  TrainFlags flags;
  ASSERT_TRUE(parse({"--fake_data", "--bf16=0", "--fake_data=true"}, &flags).ok);
  EXPECT_EQ(flags.trainer.precision, Precision::kFloat32);
}

// XLA_USE_BF16 set for a whole job; one run given --bf16=false is float32.
TEST(TrainFlags, AnExplicitBf16WinsOverXlaUseBf16) {
  const auto precision = [](const char* env, std::vector<std::string> args) {
    setenv("XLA_USE_BF16", env, 1);
    args.insert(args.begin(), "--fake_data");
    TrainFlags flags;
    const ParseOutcome o = parse(args, &flags);
    unsetenv("XLA_USE_BF16");
    EXPECT_TRUE(o.ok) << env << " " << o.err;
    return flags.trainer.precision;
  };
  EXPECT_EQ(precision("1", {}), Precision::kBFloat16);
  EXPECT_EQ(precision("1", {"--bf16=false"}), Precision::kFloat32);
  EXPECT_EQ(precision("true", {"--bf16=0"}), Precision::kFloat32);
  EXPECT_EQ(precision("0", {"--bf16"}), Precision::kBFloat16);
  EXPECT_EQ(precision("false", {}), Precision::kFloat32);
  setenv("XLA_USE_BF16", "2", 1);
  expect_rejected("XLA_USE_BF16: expected 1, 0, true or false, got '2'", {"--bf16=true"});
  unsetenv("XLA_USE_BF16");
}

TEST(TrainFlags, IntegersMustFitTheirTypeAndBounds) {
  expect_rejected("--num_steps", {"--num_steps=9223372036854775808"});
  expect_rejected("--num_steps", {"--num_steps=-1"});
  expect_rejected("--num_epochs", {"--num_epochs=2147483648"});
  expect_rejected("--num_epochs", {"--num_epochs=1000001"});
  expect_rejected("--batch_size", {"--batch_size=1e10"});
  expect_rejected("--batch_size", {"--batch_size=65537"});
  expect_rejected("--image_size", {"--image_size=100000"});
  expect_rejected("--num_cores", {"--num_cores=1000000"});
  expect_rejected("--seed", {"--seed=-1"});  // CLI11 alone reads it as 2^64 - 1
  expect_rejected("--seed", {"--seed=0x10"});
  expect_rejected("--log_steps", {"--log_steps=2147483648"});
}

TEST(TrainFlags, IntegersAreDecimal) {
  TrainFlags flags;
  ASSERT_TRUE(
      parse({"--fake_data", "--batch_size=010", "--num_steps=9223372036854775807"}, &flags).ok);
  EXPECT_EQ(flags.trainer.batch_size, 10);                                  // not octal 8
  EXPECT_EQ(flags.trainer.num_steps, std::numeric_limits<int64_t>::max());  // "the whole epoch"
}

TEST(TrainFlags, AnEmptyValueIsAValueNotTheNextFlag) {
  expect_rejected("--model: expected one of", {"--model=", "--num_epochs=1"});
  expect_rejected("--lr: expected a finite number >= 0, got ''", {"--lr=", "--model=resnet20"});
  expect_rejected("--datadir: expected a path, got ''", {"--datadir="});
  expect_rejected("--logdir: expected a path, got ''", {"--logdir=", "--resume=auto"});
  TrainFlags flags;  // after "--" nothing is an option
  expect_one_line_error(parse({"--fake_data", "--", "--model="}, &flags), "train", "after --");
}

// As argparse reads them: sweep scripts append overrides to a common list of flags.
TEST(TrainFlags, AFlagGivenTwiceTakesItsLastValue) {
  TrainFlags flags;
  const ParseOutcome o =
      parse({"--fake_data", "--num_epochs=3", "--model", "resnet20", "--lr=0.2", "--fake_data",
             "--num_epochs", "2", "--model=resnet18", "--lr", "0.3"},
            &flags);
  ASSERT_TRUE(o.ok) << o.err;
  EXPECT_EQ(flags.trainer.num_epochs, 2);
  EXPECT_EQ(flags.model, "resnet18");
  EXPECT_FLOAT_EQ(flags.trainer.lr_schedule.lr, 0.3f);
  EXPECT_TRUE(flags.fake_data);
}

TEST(TrainFlags, EveryValueGivenIsChecked) {
  expect_rejected("--batch_size", {"--batch_size=0", "--batch_size=8"});  // argparse too
}

// The groups of docs/FLAGS.md's table ("| **Optimizer** | | |" rows), each with its flags.
std::vector<std::pair<std::string, std::vector<std::string>>> documented_groups() {
  std::ifstream in(std::string(XTRAIN_SOURCE_DIR) + "/docs/FLAGS.md");
  std::string line;
  while (std::getline(in, line) && line != "## Flags") {
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  const std::regex group(R"(^\| \*\*(.+)\*\* \|.*)"), flag("`(--[a-z0-9_]+)`");
  for (std::smatch m; std::getline(in, line) && line.rfind("## ", 0) != 0;) {
    if (std::regex_match(line, m, group)) groups.push_back({m[1], {}});
    if (line.rfind("| `--", 0) != 0 || groups.empty()) continue;
    const std::string first_cell = line.substr(0, line.find('|', 1));
    for (auto it = std::sregex_iterator(first_cell.begin(), first_cell.end(), flag);
         it != std::sregex_iterator(); ++it) {
      groups.back().second.push_back((*it)[1]);
    }
  }
  return groups;
}

// The groups of --help ("Optimizer:" then its options), --help itself left out.
std::vector<std::pair<std::string, std::vector<std::string>>> help_groups(const std::string& help) {
  std::istringstream in(help);
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  const std::regex group("^([A-Z][^:]*):$"), option("^  (--[a-z0-9_]+)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, group) && m[1] != "Options" && m[1] != "Usage") {
      groups.push_back({m[1], {}});
    } else if (std::regex_search(line, m, option) && !groups.empty()) {
      groups.back().second.push_back(m[1]);
    }
  }
  return groups;
}

TEST(TrainFlags, HelpGroupsTheFlagsAsTheDocumentedTableDoes) {
  TrainFlags flags;
  const ParseOutcome help = parse({"--help"}, &flags);
  ASSERT_EQ(help.exit_code, 0);
  const auto documented = documented_groups();
  ASSERT_EQ(documented.size(), 5u);
  EXPECT_EQ(help_groups(help.out), documented) << help.out;
}

TEST(TrainFlags, AutoAugmentIsOneOfTorchvisionsPoliciesAndRandomEraseAProbability) {
  expect_rejected(
      "--auto_augment: expected one of ta_wide, ra, augmix, imagenet, got "
      "'rand-m9-mstd0.5'",
      {"--auto_augment=rand-m9-mstd0.5"});
  expect_rejected("--auto_augment", {"--auto_augment=cifar10"});
  expect_rejected("--auto_augment", {"--auto_augment="});
  expect_rejected("--random_erase", {"--random_erase=1.5"});
  expect_rejected("--random_erase", {"--random_erase=-0.1"});
  expect_rejected("--random_erase", {"--random_erase=nan"});
  TrainFlags flags;
  ASSERT_TRUE(parse({"--fake_data"}, &flags).ok);
  EXPECT_EQ(flags.data.train_extras.auto_augment, "");  // the default draws nothing more
  EXPECT_EQ(flags.data.train_extras.random_erase, 0.0);
  ASSERT_TRUE(parse({"--fake_data", "--auto_augment=ta_wide", "--random_erase=0.25"}, &flags).ok);
  EXPECT_EQ(flags.data.train_extras.auto_augment, "ta_wide");
  EXPECT_EQ(flags.data.train_extras.random_erase, 0.25);
  for (const char* policy : {"ra", "augmix", "imagenet"}) {
    ASSERT_TRUE(parse({"--fake_data", std::string("--auto_augment=") + policy}, &flags).ok);
    EXPECT_EQ(flags.data.train_extras.auto_augment, policy);
  }
}

// --cache_dataset is a switch; --fake_data has nothing to cache and takes it without a word.
TEST(TrainFlags, CacheDatasetIsASwitch) {
  TrainFlags flags;
  ASSERT_TRUE(parse({"--fake_data"}, &flags).ok);
  EXPECT_FALSE(flags.data.cache_dataset);
  ASSERT_TRUE(parse({"--fake_data", "--cache_dataset"}, &flags).ok);
  EXPECT_TRUE(flags.data.cache_dataset);
  ASSERT_TRUE(parse({"--datadir=/data", "--cache_dataset=false"}, &flags).ok);
  EXPECT_FALSE(flags.data.cache_dataset);
  expect_rejected("--cache_dataset", {"--cache_dataset=maybe"});
}

// --fake_images says which made-up images --fake_data gives: zeros (the XLA script's, the
// default) or noise; without --fake_data it would change nothing and is refused.
TEST(TrainFlags, FakeImagesAreZerosOrNoiseWithFakeData) {
  TrainFlags flags;
  ASSERT_TRUE(parse({"--fake_data"}, &flags).ok);
  EXPECT_EQ(flags.fake_images, "zeros");
  ASSERT_TRUE(parse({"--fake_data", "--fake_images=noise"}, &flags).ok);
  EXPECT_EQ(flags.fake_images, "noise");
  ASSERT_TRUE(parse({"--fake_data", "--fake-images", "zeros"}, &flags).ok);
  EXPECT_EQ(flags.fake_images, "zeros");
  expect_rejected("--fake_images", {"--fake_images=randn"});
  expect_rejected("--fake_images", {"--fake_images="});
  for (const std::string& value : {"noise", "zeros"}) {
    TrainFlags fresh;
    const ParseOutcome o = parse({"--datadir=/data", "--fake_images=" + value}, &fresh);
    expect_one_line_error(o, "train", value);
    EXPECT_NE(o.err.find("--fake_images needs --fake_data"), std::string::npos) << o.err;
  }
}

// --time_to_top1's accuracies and --target_accuracy's, once each, ascending.
TEST(TrainFlags, TimeToTop1TakesItsTargetsAndTheTargetAccuracy) {
  TrainFlags flags;
  ASSERT_TRUE(parse({"--fake_data"}, &flags).ok);
  EXPECT_TRUE(flags.trainer.top1_targets.empty());
  ASSERT_TRUE(
      parse({"--fake_data", "--time_to_top1=92,90", "--time_to_top1", "95", "--target_accuracy=92"},
            &flags)
          .ok);
  EXPECT_EQ(flags.trainer.top1_targets, (std::vector<double>{90, 92, 95}));
  expect_rejected("--time_to_top1", {"--time_to_top1=0"});
  expect_rejected("--time_to_top1", {"--time_to_top1=90,101"});
}

TEST(TrainFlags, PolicyParametersAreTorchvisionsRangesAndNeedTheirPolicy) {
  TrainFlags flags;
  ASSERT_TRUE(parse({"--fake_data", "--auto_augment=ra"}, &flags).ok);
  EXPECT_EQ(flags.data.train_extras.ra_magnitude, 9);  // torchvision's default
  EXPECT_EQ(flags.data.train_extras.augmix_severity, 3);
  ASSERT_TRUE(parse({"--fake_data", "--auto_augment=ra", "--ra_magnitude=30"}, &flags).ok);
  EXPECT_EQ(flags.data.train_extras.ra_magnitude, 30);
  ASSERT_TRUE(parse({"--fake_data", "--auto_augment=augmix", "--augmix_severity=10"}, &flags).ok);
  EXPECT_EQ(flags.data.train_extras.augmix_severity, 10);
  expect_rejected("--ra_magnitude", {"--auto_augment=ra", "--ra_magnitude=31"});
  expect_rejected("--ra_magnitude", {"--auto_augment=ra", "--ra_magnitude=-1"});
  expect_rejected("--ra_magnitude", {"--auto_augment=ra", "--ra_magnitude=9.5"});
  expect_rejected("--augmix_severity", {"--auto_augment=augmix", "--augmix_severity=0"});
  expect_rejected("--augmix_severity", {"--auto_augment=augmix", "--augmix_severity=11"});
  expect_rejected("--ra_magnitude needs --auto_augment=ra", {"--ra_magnitude=5"});
  expect_rejected("--ra_magnitude needs --auto_augment=ra",
                  {"--auto_augment=augmix", "--ra_magnitude=5"});
  expect_rejected("--augmix_severity needs --auto_augment=augmix",
                  {"--auto_augment=ta_wide", "--augmix_severity=2"});
}

TEST(TrainFlags, OptimizerAndMixingFlags) {
  expect_rejected("--opt", {"--opt=adam"});
  expect_rejected("--norm_weight_decay", {"--norm_weight_decay=-1"});
  expect_rejected("--trust_coefficient", {"--trust_coefficient=0"});
  expect_rejected("--mixup_alpha", {"--mixup_alpha=-0.2"});
  expect_rejected("--cutmix_alpha", {"--cutmix_alpha=nan"});
  TrainFlags flags;
  ASSERT_TRUE(parse({"--fake_data"}, &flags).ok);
  EXPECT_EQ(flags.trainer.optimizer.name, "sgd");
  EXPECT_FALSE(flags.trainer.optimizer.norm_weight_decay.has_value());
  EXPECT_FALSE(flags.trainer.batch_mix.enabled());
  ASSERT_TRUE(parse({"--fake_data", "--opt=lamb", "--norm_weight_decay=0", "--bias_weight_decay=0",
                     "--mixup_alpha=0.2", "--cutmix_alpha=1"},
                    &flags)
                  .ok);
  EXPECT_EQ(flags.trainer.optimizer.name, "lamb");
  EXPECT_EQ(flags.trainer.optimizer.norm_weight_decay, 0.0f);
  EXPECT_EQ(flags.trainer.optimizer.bias_weight_decay, 0.0f);
  EXPECT_EQ(flags.trainer.batch_mix.mixup_alpha, 0.2f);
  EXPECT_EQ(flags.trainer.batch_mix.cutmix_alpha, 1.0f);
}

// torchvision's reference script's sizes: --image_size stands for the crops not given, and the
// test Resize defaults to round(crop / 0.875) (0 here: the transform works it out).
TEST(TrainFlags, CropSizesDefaultToImageSize) {
  TrainFlags flags;
  ASSERT_TRUE(parse({"--fake_data", "--model=resnet20"}, &flags).ok);
  EXPECT_EQ(flags.trainer.image_size, 224);
  EXPECT_EQ(flags.trainer.test_image_size, 224);
  EXPECT_EQ(flags.data.test_image_size, 224);
  EXPECT_EQ(flags.data.resampling.test_resize_side, 0);
  EXPECT_EQ(flags.data.resampling.interpolation, Interpolation::kBilinear);
  ASSERT_TRUE(parse({"--fake_data", "--model=inception_v3", "--val_crop_size=320"}, &flags).ok);
  EXPECT_EQ(flags.trainer.image_size, 299);  // the model's default, where --image_size is not given
  EXPECT_EQ(flags.trainer.test_image_size, 320);
  EXPECT_FALSE(flags.train_crop_size_given);
  EXPECT_TRUE(flags.val_crop_size_given);
  // ResNet-50's V2 recipe.
  ASSERT_TRUE(parse({"--fake_data", "--train_crop_size=176", "--val_resize_size=232",
                     "--val_crop_size=224", "--interpolation=bicubic"},
                    &flags)
                  .ok);
  EXPECT_EQ(flags.trainer.image_size, 176);
  EXPECT_EQ(flags.trainer.test_image_size, 224);
  EXPECT_EQ(flags.data.test_image_size, 224);
  EXPECT_EQ(flags.data.resampling.test_resize_side, 232);
  EXPECT_EQ(flags.data.resampling.interpolation, Interpolation::kBicubic);
  ASSERT_TRUE(parse({"--fake_data", "--image_size=64", "--train_crop_size=48"}, &flags).ok);
  EXPECT_EQ(flags.trainer.image_size, 48);
  EXPECT_EQ(flags.trainer.test_image_size, 64);
  ASSERT_TRUE(parse({"--fake_data", "--interpolation=nearest"}, &flags).ok);
  EXPECT_EQ(flags.data.resampling.interpolation, Interpolation::kNearest);
}

TEST(TrainFlags, BadCropSizesAreRefusedNamingTheFlag) {
  expect_rejected("--interpolation: expected one of nearest, bilinear, bicubic, got 'lanczos'",
                  {"--interpolation=lanczos"});
  expect_rejected("--train_crop_size", {"--train_crop_size=0"});
  expect_rejected("--val_crop_size", {"--val_crop_size=100000"});
  expect_rejected("--val_resize_size", {"--val_resize_size=-1"});
  expect_rejected(
      "--val_resize_size=200 is smaller than --val_crop_size=224: the center crop would not fit",
      {"--val_resize_size=200"});
  expect_rejected("--val_resize_size=27 is smaller than --val_crop_size=28",
                  {"--val_crop_size=28", "--val_resize_size=27"});
  expect_rejected("--val_resize_size needs --augment=imagenet",
                  {"--augment=cifar", "--val_resize_size=36"});
  expect_rejected("--image_size does nothing with both --train_crop_size and --val_crop_size",
                  {"--image_size=32", "--train_crop_size=24", "--val_crop_size=28"});
  TrainFlags flags;
  EXPECT_TRUE(parse({"--fake_data", "--val_crop_size=28", "--val_resize_size=28"}, &flags).ok);
}

TEST(TrainFlags, CheckpointFlagsNeedALogdir) {
  expect_rejected("--checkpoint_steps", {"--checkpoint_steps=5"});
  expect_rejected("--keep_checkpoints", {"--keep_checkpoints=2"});
  expect_rejected("--resume=auto", {"--resume=auto"});
}

// torch_xla's WarmupAndExponentialDecayScheduler stays the default (resnet50's, none for the
// others); --lr_scheduler takes torchvision's reference recipes instead, with train.py's defaults.
TEST(TrainFlags, TorchXlasScheduleStaysTheDefault) {
  TrainFlags flags;
  ASSERT_TRUE(parse({"--fake_data", "--model=resnet50"}, &flags).ok);
  EXPECT_EQ(flags.trainer.lr_schedule.type, "WarmupAndExponentialDecayScheduler");
  EXPECT_EQ(flags.trainer.lr_schedule.torchvision.lr_scheduler, "");
}

TEST(TrainFlags, LrSchedulerTakesTorchvisionsScheduleWithItsDefaults) {
  TrainFlags flags;
  ASSERT_TRUE(
      parse({"--fake_data", "--model=resnet50", "--lr_scheduler=cosineannealinglr"}, &flags).ok);
  const TorchvisionLROptions& tv = flags.trainer.lr_schedule.torchvision;
  EXPECT_EQ(flags.trainer.lr_schedule.type, "none");  // not resnet50's torch_xla schedule
  EXPECT_EQ(tv.lr_scheduler, "cosineannealinglr");
  EXPECT_EQ(tv.lr_warmup_epochs, 0);
  EXPECT_EQ(tv.lr_warmup_method, "constant");
  EXPECT_EQ(tv.lr_warmup_decay, 0.01);
  EXPECT_EQ(tv.lr_step_size, 30);
  EXPECT_EQ(tv.lr_gamma, 0.1);
  EXPECT_EQ(tv.lr_min, 0.0);
  EXPECT_TRUE(tv.lr_milestones.empty());
}

TEST(TrainFlags, LrMilestonesAreCommaSeparatedOrRepeated) {
  TrainFlags flags;
  const ParseOutcome o =
      parse({"--fake_data", "--lr_scheduler=multisteplr", "--num_epochs=300",
             "--lr_milestones=150,225", "--lr_milestones", "270", "--lr_gamma=0.2",
             "--lr_warmup_epochs=5", "--lr_warmup_method=linear", "--lr_warmup_decay=0.1"},
            &flags);
  ASSERT_TRUE(o.ok) << o.err;
  const TorchvisionLROptions& tv = flags.trainer.lr_schedule.torchvision;
  EXPECT_EQ(tv.lr_milestones, (std::vector<int>{150, 225, 270}));
  EXPECT_EQ(tv.lr_gamma, 0.2);  // a double, as Python's float
  EXPECT_EQ(tv.lr_warmup_epochs, 5);
  EXPECT_EQ(tv.lr_warmup_method, "linear");
  EXPECT_EQ(tv.lr_warmup_decay, 0.1);
}

TEST(TrainFlags, BadScheduleValuesNameTheFlag) {
  expect_rejected("--lr_scheduler: expected one of", {"--lr_scheduler=cosine"});
  expect_rejected("--lr_scheduler", {"--lr_scheduler=StepLR"});
  expect_rejected("--lr_warmup_method", {"--lr_scheduler=steplr", "--lr_warmup_epochs=1",
                                         "--lr_warmup_method=exponential"});
  expect_rejected("--lr_warmup_epochs", {"--lr_scheduler=steplr", "--lr_warmup_epochs=-1"});
  expect_rejected("--lr_warmup_epochs", {"--lr_scheduler=steplr", "--lr_warmup_epochs=2.5"});
  for (const std::string decay : {"0", "1.5", "nan", "-0.1"}) {
    expect_rejected("--lr_warmup_decay",
                    {"--lr_scheduler=steplr", "--lr_warmup_epochs=1", "--lr_warmup_method=linear",
                     "--lr_warmup_decay=" + decay});
  }
  expect_rejected("--lr_step_size", {"--lr_scheduler=steplr", "--lr_step_size=0"});
  for (const std::string gamma : {"0", "1.1", "inf", "-1"}) {
    expect_rejected("--lr_gamma", {"--lr_scheduler=exponentiallr", "--lr_gamma=" + gamma});
  }
  expect_rejected("--lr_min", {"--lr_scheduler=cosineannealinglr", "--lr_min=-1"});
  expect_rejected("--lr_min", {"--lr_scheduler=cosineannealinglr", "--lr_min=1e39"});
  expect_rejected("--lr_scheduler=multisteplr needs --lr_milestones",
                  {"--lr_scheduler=multisteplr"});
  for (const std::string milestones : {"", "0", "5,x", "150,150", "225,150", "1e2", "-3"}) {
    expect_rejected("--lr_milestones",
                    {"--lr_scheduler=multisteplr", "--lr_milestones=" + milestones});
  }
  expect_rejected("--lr_milestones",
                  {"--lr_scheduler=multisteplr", "--lr_milestones=5", "--lr_milestones=3"});
  // T_max = epochs - warmup epochs, by which CosineAnnealingLR divides.
  expect_rejected("--num_epochs above --lr_warmup_epochs",
                  {"--lr_scheduler=cosineannealinglr", "--num_epochs=5", "--lr_warmup_epochs=5"});
}

TEST(TrainFlags, TorchXlasAndTorchvisionsSchedulesAreOneOrTheOther) {
  expect_rejected("--lr_scheduler_type and --lr_scheduler",
                  {"--lr_scheduler=steplr", "--lr_scheduler_type=none"});
  for (const std::string xla :
       {"--lr_scheduler_divisor=2", "--lr_scheduler_divide_every_n_epochs=3",
        "--num_warmup_epochs=1"}) {
    expect_rejected(xla.substr(0, xla.find('=')) + " is --lr_scheduler_type's",
                    {"--lr_scheduler=steplr", xla});
  }
  for (const std::string tv :
       {"--lr_warmup_epochs=1", "--lr_warmup_method=linear", "--lr_warmup_decay=0.1",
        "--lr_step_size=3", "--lr_gamma=0.5", "--lr_min=0.001", "--lr_milestones=3"}) {
    expect_rejected(tv.substr(0, tv.find('=')) + " needs --lr_scheduler", {tv});
  }
}

// torchvision's train.py would ignore these; here they are mistakes said at once.
TEST(TrainFlags, ScheduleFlagsTheChosenScheduleIgnoresAreRefused) {
  expect_rejected("--lr_step_size does nothing with --lr_scheduler=cosineannealinglr",
                  {"--lr_scheduler=cosineannealinglr", "--lr_step_size=3"});
  expect_rejected("--lr_milestones does nothing with --lr_scheduler=steplr",
                  {"--lr_scheduler=steplr", "--lr_milestones=3"});
  expect_rejected("--lr_min does nothing with --lr_scheduler=exponentiallr",
                  {"--lr_scheduler=exponentiallr", "--lr_min=0.1"});
  expect_rejected("--lr_gamma does nothing with --lr_scheduler=cosineannealinglr",
                  {"--lr_scheduler=cosineannealinglr", "--lr_gamma=0.5"});
  expect_rejected("--lr_warmup_method does nothing without --lr_warmup_epochs",
                  {"--lr_scheduler=steplr", "--lr_warmup_method=linear"});
  expect_rejected("--lr_warmup_decay does nothing without --lr_warmup_epochs",
                  {"--lr_scheduler=steplr", "--lr_warmup_epochs=0", "--lr_warmup_decay=0.1"});
}

TEST(TrainFlags, BytesThatAreNotUtf8AreRecordedAsValidLosslessJson) {
  const std::vector<std::string> args = {"--datadir=nu\xff_dir", "--logdir=a\\b\nc",
                                         "--profile=\xc3\x28.json"};
  TrainFlags flags;
  ASSERT_TRUE(parse(args, &flags).ok);
  EXPECT_EQ(flags.data.datadir, "nu\xff_dir");  // the path itself is untouched
  nlohmann::json record;
  ASSERT_NO_THROW(record = nlohmann::json::parse(flags.trainer.flags));
  ASSERT_EQ(record["argv"].size(), args.size());
  EXPECT_EQ(record["argv"][0], "--datadir=nu\\xff_dir");
  for (size_t i = 0; i < args.size(); ++i) {
    std::string bytes;
    ASSERT_TRUE(testing::unescape_bytes(record["argv"][i].get<std::string>(), &bytes));
    EXPECT_EQ(bytes, args[i]);
  }
}

TEST(TrainFlags, ErrorsAboutOddBytesStayOnOneLine) {
  expect_rejected("--model", {"--model=a\nb"});
  expect_rejected("--no_such", {"--no_such\xff\n"});
}

// Every value a successful parse leaves is one the rest of train accepts.
void expect_valid(const TrainFlags& f, const std::string& context) {
  const TrainerOptions& t = f.trainer;
  const std::vector<std::string> models = model_names();
  EXPECT_NE(std::find(models.begin(), models.end(), f.model), models.end()) << context;
  EXPECT_TRUE(f.fake_data != !f.data.datadir.empty()) << context;
  EXPECT_TRUE(f.data.augment == "imagenet" || f.data.augment == "cifar") << context;
  const std::string& policy = f.data.train_extras.auto_augment;
  EXPECT_TRUE(policy.empty() || policy == "ta_wide" || policy == "ra" || policy == "augmix" ||
              policy == "imagenet")
      << context;
  EXPECT_TRUE(f.data.train_extras.ra_magnitude >= 0 && f.data.train_extras.ra_magnitude <= 30)
      << context;
  EXPECT_TRUE(f.data.train_extras.augmix_severity >= 1 && f.data.train_extras.augmix_severity <= 10)
      << context;
  EXPECT_TRUE(f.data.train_extras.random_erase >= 0 && f.data.train_extras.random_erase <= 1)
      << context;
  EXPECT_TRUE(t.lr_schedule.type == "none" ||
              t.lr_schedule.type == "WarmupAndExponentialDecayScheduler")
      << context;
  if (!t.lr_schedule.torchvision.lr_scheduler.empty()) {
    EXPECT_EQ(t.lr_schedule.type, "none") << context;
    EXPECT_NO_THROW(check_torchvision_lr_options(t.lr_schedule.torchvision, t.num_epochs))
        << context;
  }
  for (int n : {f.data.loader.num_workers, f.data.loader.prefetch_factor,
                f.data.loader.loader_prefetch_size, t.num_cores}) {
    EXPECT_TRUE(n >= 1 && n <= 1024) << context;
  }
  EXPECT_TRUE(f.num_classes >= 0 && f.num_classes <= (1 << 20)) << context;
  EXPECT_TRUE(t.image_size >= 1 && t.image_size <= 16384) << context;
  EXPECT_TRUE(t.test_image_size >= 1 && t.test_image_size <= 16384) << context;
  EXPECT_EQ(f.data.test_image_size, t.test_image_size) << context;
  const int resize = f.data.resampling.test_resize_side;
  EXPECT_TRUE(resize == 0 || (resize >= t.test_image_size && f.data.augment == "imagenet"))
      << context;
  EXPECT_TRUE(t.batch_size >= 1 && t.batch_size <= 65536) << context;
  EXPECT_TRUE(t.test_set_batch_size >= 1 && t.test_set_batch_size <= 65536) << context;
  EXPECT_TRUE(t.num_epochs >= 0 && t.num_epochs <= kMaxEpochs) << context;
  EXPECT_TRUE(t.num_steps >= 0 && t.num_test_steps >= 0 && t.checkpoint_steps >= 0) << context;
  EXPECT_TRUE(t.log_steps >= 1 && t.keep_checkpoints >= 1) << context;
  EXPECT_TRUE(t.lr_schedule.divide_every_n_epochs >= 1) << context;
  EXPECT_LE(t.seed, uint64_t{std::numeric_limits<int64_t>::max()}) << context;
  for (float x :
       {t.lr_schedule.lr, t.optimizer.momentum, t.optimizer.weight_decay, t.label_smoothing}) {
    EXPECT_TRUE(std::isfinite(x) && x >= 0) << context;
  }
  EXPECT_LE(t.label_smoothing, 1.0f) << context;
  EXPECT_TRUE(std::isfinite(t.lr_schedule.divisor) && t.lr_schedule.divisor > 0) << context;
  EXPECT_TRUE(t.lr_schedule.num_warmup_epochs >= 0 && t.lr_schedule.num_warmup_epochs <= kMaxEpochs)
      << context;
  EXPECT_TRUE(f.target_accuracy >= 0 && f.target_accuracy <= 100) << context;
  EXPECT_TRUE(!f.evaluate || !f.resume.empty() || !f.pretrained.empty()) << context;
  EXPECT_TRUE(f.resume != "auto" || !t.logdir.empty()) << context;
  EXPECT_NO_THROW(nlohmann::json::parse(t.flags)) << context;
}

TEST(TrainFlags, RandomArgvsParseCleanlyOrFailInOneLine) {
  TrainFlags help_flags;
  const ParseOutcome help = parse({"--help"}, &help_flags);
  ASSERT_FALSE(help.ok);
  ASSERT_EQ(help.exit_code, 0);
  std::vector<std::string> options = testing::options_in_help(help.out);
  ASSERT_GE(options.size(), 35u) << help.out;
  // torchvision's spellings (torchvision_flags.h): its names, hyphens, and flags train lacks.
  options.insert(options.end(), {"--data-path", "-b", "--epochs", "--amp", "--test-only",
                                 "--lr-scheduler", "--mixup-alpha", "--model-ema", "--start-epoch",
                                 "--device", "--use-deterministic-algorithms"});

  const std::vector<std::string> good_args = {"--fake_data", "--model=resnet20", "--lr=0.5",
                                              "--logdir=/tmp/x"};
  std::mt19937 rng(2024);
  int parsed = 0, refused = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const std::vector<std::string> args = testing::random_args(rng, options, good_args);
    const std::string context =
        "trial " + std::to_string(trial) + ": " + ::testing::PrintToString(args);
    TrainFlags flags;
    const ParseOutcome o = parse(args, &flags);
    if (o.ok) {
      ++parsed;
      EXPECT_TRUE(o.err.empty() && o.out.empty()) << context;
      expect_valid(flags, context);
    } else if (o.exit_code == 0) {  // --help
      EXPECT_TRUE(o.err.empty()) << context;
    } else {
      ++refused;
      expect_one_line_error(o, "train", context);
    }
    if (::testing::Test::HasFailure()) return;  // one broken argv is enough to read
  }
  EXPECT_GE(parsed, 400);  // both ways are exercised
  EXPECT_GE(refused, 2000);
}

TEST(TrainFlags, ModelEmaTakesTorchvisionsDefaultsAndChecksItsValues) {
  TrainFlags flags;
  ASSERT_TRUE(parse({"--fake_data"}, &flags).ok);
  EXPECT_FALSE(flags.trainer.model_ema.enabled);
  ASSERT_TRUE(parse({"--fake_data", "--model_ema"}, &flags).ok);
  EXPECT_TRUE(flags.trainer.model_ema.enabled);
  EXPECT_EQ(flags.trainer.model_ema.steps, 32);
  EXPECT_EQ(flags.trainer.model_ema.decay, 0.99998);
  ASSERT_TRUE(
      parse({"--fake_data", "--model_ema", "--model_ema_steps=8", "--model_ema_decay=0.999"},
            &flags)
          .ok);
  EXPECT_EQ(flags.trainer.model_ema.steps, 8);
  EXPECT_EQ(flags.trainer.model_ema.decay, 0.999);
  expect_rejected("--model_ema_steps", {"--model_ema", "--model_ema_steps=0"});
  expect_rejected("--model_ema_steps", {"--model_ema", "--model_ema_steps=-3"});
  expect_rejected("--model_ema_steps", {"--model_ema", "--model_ema_steps=1.5"});
  for (const char* decay : {"0", "1", "1.5", "-0.1", "nan", "inf"}) {
    expect_rejected("--model_ema_decay",
                    {"--model_ema", std::string("--model_ema_decay=") + decay});
  }
  for (const char* flag : {"--model_ema_steps=4", "--model_ema_decay=0.9"}) {
    expect_rejected("--model_ema_steps and --model_ema_decay need --model_ema", {flag});
  }
  expect_rejected("--model_ema", {"--model_ema", "--evaluate", "--pretrained=w.safetensors"});
  expect_rejected("--model_ema needs --num_epochs >= 1", {"--model_ema", "--num_epochs=0"});
}

}  // namespace
}  // namespace xtrain
