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
  EXPECT_FLOAT_EQ(flags.trainer.sgd.weight_decay, 1e-4f);
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
    EXPECT_TRUE(flags.trainer.sgd.nesterov) << value;
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

TEST(TrainFlags, AutoAugmentIsTaWideOnlyAndRandomEraseAProbability) {
  expect_rejected("--auto_augment: expected one of ta_wide, got 'rand-m9-mstd0.5'",
                  {"--auto_augment=rand-m9-mstd0.5"});
  expect_rejected("--auto_augment", {"--auto_augment=imagenet"});
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
}

TEST(TrainFlags, CheckpointFlagsNeedALogdir) {
  expect_rejected("--checkpoint_steps", {"--checkpoint_steps=5"});
  expect_rejected("--keep_checkpoints", {"--keep_checkpoints=2"});
  expect_rejected("--resume=auto", {"--resume=auto"});
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
  EXPECT_TRUE(f.data.train_extras.auto_augment.empty() ||
              f.data.train_extras.auto_augment == "ta_wide")
      << context;
  EXPECT_TRUE(f.data.train_extras.random_erase >= 0 && f.data.train_extras.random_erase <= 1)
      << context;
  EXPECT_TRUE(t.lr_schedule.type == "none" ||
              t.lr_schedule.type == "WarmupAndExponentialDecayScheduler")
      << context;
  for (int n : {f.data.loader.num_workers, f.data.loader.prefetch_factor,
                f.data.loader.loader_prefetch_size, t.num_cores}) {
    EXPECT_TRUE(n >= 1 && n <= 1024) << context;
  }
  EXPECT_TRUE(f.num_classes >= 0 && f.num_classes <= (1 << 20)) << context;
  EXPECT_TRUE(t.image_size >= 1 && t.image_size <= 16384) << context;
  EXPECT_TRUE(t.batch_size >= 1 && t.batch_size <= 65536) << context;
  EXPECT_TRUE(t.test_set_batch_size >= 1 && t.test_set_batch_size <= 65536) << context;
  EXPECT_TRUE(t.num_epochs >= 0 && t.num_epochs <= kMaxEpochs) << context;
  EXPECT_TRUE(t.num_steps >= 0 && t.num_test_steps >= 0 && t.checkpoint_steps >= 0) << context;
  EXPECT_TRUE(t.log_steps >= 1 && t.keep_checkpoints >= 1) << context;
  EXPECT_TRUE(t.lr_schedule.divide_every_n_epochs >= 1) << context;
  EXPECT_LE(t.seed, uint64_t{std::numeric_limits<int64_t>::max()}) << context;
  for (float x : {t.lr_schedule.lr, t.sgd.momentum, t.sgd.weight_decay, t.label_smoothing}) {
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
  const std::vector<std::string> options = testing::options_in_help(help.out);
  ASSERT_GE(options.size(), 35u) << help.out;

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

}  // namespace
}  // namespace xtrain
