// predict's flag parser on random argvs: a clean parse with every value in range, or one line on
// stderr and exit 2, never a throw or a crash.
#include "apps/predict_flags.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "tests/apps/flag_parsing.h"

namespace xtrain {
namespace {

using testing::ParseOutcome;

ParseOutcome parse(const std::vector<std::string>& args, PredictFlags* flags) {
  return testing::run_parser(&parse_predict_flags, "predict", args, flags);
}

TEST(PredictFlags, AnEmptyValueIsAValueNotTheNextFlag) {
  PredictFlags flags;
  const ParseOutcome o = parse({"--model=", "--top_k=3", "x.png"}, &flags);
  testing::expect_one_line_error(o, "predict", "--model=");
  EXPECT_NE(o.err.find("--model: expected one of"), std::string::npos) << o.err;
}

// As argparse reads them: the last value of a flag given twice, and every path.
TEST(PredictFlags, AFlagGivenTwiceTakesItsLastValueAndEveryPathIsKept) {
  const std::string checkpoint = std::filesystem::temp_directory_path() / "xtrain-predict-flags";
  std::FILE* file = std::fopen(checkpoint.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fclose(file);
  PredictFlags flags;
  const ParseOutcome o = parse({"--checkpoint", checkpoint, "--model=resnet18", "--top_k=3",
                                "a.png", "--model", "resnet20", "b/", "--top_k", "1", "c.jpg"},
                               &flags);
  std::filesystem::remove(checkpoint);
  ASSERT_TRUE(o.ok) << o.err;
  EXPECT_EQ(flags.model, "resnet20");
  EXPECT_EQ(flags.top_k, 1);
  EXPECT_EQ(flags.paths, (std::vector<std::string>{"a.png", "b/", "c.jpg"}));
}

// The test transform of a run that trained with torchvision's --val-resize-size and
// --interpolation (ResNet-50 V2: resize 232, crop 224); a resize that cannot hold the crop, or one
// for the cifar recipe, is refused as train refuses it.
TEST(PredictFlags, TakeTheTestResizeOfTheRun) {
  const std::string checkpoint = ::testing::TempDir() + "predict_resize_test.safetensors";
  std::fclose(std::fopen(checkpoint.c_str(), "w"));
  const std::vector<std::string> common = {"--checkpoint=" + checkpoint, "--model=resnet50",
                                           "cat.png"};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), common.begin(), common.end());
    return args;
  };
  PredictFlags flags;
  ASSERT_TRUE(parse(with({"--val_resize_size=232", "--interpolation=bicubic"}), &flags).ok);
  EXPECT_EQ(flags.image_size, 224);
  EXPECT_EQ(flags.resampling.test_resize_side, 232);
  EXPECT_EQ(flags.resampling.interpolation, Interpolation::kBicubic);
  PredictFlags defaults;
  ASSERT_TRUE(parse(common, &defaults).ok);
  EXPECT_EQ(defaults.resampling.test_resize_side, 0);  // round(224 / 0.875)
  EXPECT_EQ(defaults.resampling.interpolation, Interpolation::kBilinear);
  const std::pair<std::vector<std::string>, std::string> mistakes[] = {
      {{"--val_resize_size=200"},
       "--val_resize_size=200 is smaller than --image_size=224: the center crop would not fit"},
      {{"--augment=cifar", "--val_resize_size=232"}, "--val_resize_size needs --augment=imagenet"},
  };
  for (const auto& [args, message] : mistakes) {
    PredictFlags refused;
    const ParseOutcome o = parse(with(args), &refused);
    testing::expect_one_line_error(o, "predict", message);
    EXPECT_NE(o.err.find(message), std::string::npos) << o.err;
  }
  std::remove(checkpoint.c_str());
}

TEST(PredictFlags, RandomArgvsParseCleanlyOrFailInOneLine) {
  // --checkpoint must name an existing file and --classes a folder: give them real ones.
  const std::string checkpoint = ::testing::TempDir() + "predict_flags_test.safetensors";
  std::fclose(std::fopen(checkpoint.c_str(), "w"));
  const std::string folder = ::testing::TempDir();

  PredictFlags help_flags;
  const ParseOutcome help = parse({"--help"}, &help_flags);
  ASSERT_EQ(help.exit_code, 0);
  const std::vector<std::string> options = testing::options_in_help(help.out);
  ASSERT_GE(options.size(), 8u) << help.out;

  const std::vector<std::string> good_args = {"--checkpoint=" + checkpoint, "--model=resnet20",
                                              "--classes=" + folder, "cat.png"};
  std::mt19937 rng(7);
  int parsed = 0, refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const std::vector<std::string> args = testing::random_args(rng, options, good_args);
    const std::string context =
        "trial " + std::to_string(trial) + ": " + ::testing::PrintToString(args);
    PredictFlags f;
    const ParseOutcome o = parse(args, &f);
    if (o.ok) {
      ++parsed;
      EXPECT_TRUE(o.err.empty() && o.out.empty()) << context;
      EXPECT_TRUE(f.num_classes >= 0 && f.num_classes <= (1 << 20)) << context;
      EXPECT_TRUE(f.image_size >= 1 && f.image_size <= 16384) << context;
      EXPECT_TRUE(f.top_k >= 1 && f.batch_size >= 1 && f.batch_size <= 65536) << context;
      EXPECT_TRUE(f.augment == "imagenet" || f.augment == "cifar") << context;
      EXPECT_TRUE(std::filesystem::is_regular_file(f.checkpoint)) << context;
      EXPECT_FALSE(f.paths.empty()) << context;
    } else if (o.exit_code == 0) {  // --help
      EXPECT_TRUE(o.err.empty()) << context;
    } else {
      ++refused;
      testing::expect_one_line_error(o, "predict", context);
    }
    if (::testing::Test::HasFailure()) break;  // one broken argv is enough to read
  }
  std::remove(checkpoint.c_str());
  EXPECT_GE(parsed, 300);  // both ways are exercised
  EXPECT_GE(refused, 1500);
}

}  // namespace
}  // namespace xtrain
