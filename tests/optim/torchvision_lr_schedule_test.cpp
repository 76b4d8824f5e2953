// torchvision's LR recipes (--lr_scheduler) against PyTorch's own schedulers: the per-epoch
// rates of tests/golden/lr_schedules.json (scripts/make_lr_schedule_golden.py), the rate held
// through each epoch's steps, seek() landing where stepping does, and bad values named.
#include "lib/optim/torchvision_lr_schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lib/base/check.h"

namespace xtrain {
namespace {

nlohmann::json golden_configs() {
  const std::string path = std::string(XTRAIN_SOURCE_DIR) + "/tests/golden/lr_schedules.json";
  std::ifstream file(path);
  EXPECT_TRUE(file.good()) << path << " is missing: run scripts/make_lr_schedule_golden.py";
  return nlohmann::json::parse(file)["configs"];
}

TorchvisionLROptions options_of(const nlohmann::json& c) {
  TorchvisionLROptions o;
  o.lr_scheduler = c["lr_scheduler"];
  o.lr_warmup_epochs = c["lr_warmup_epochs"];
  o.lr_warmup_method = c["lr_warmup_method"];
  o.lr_warmup_decay = c["lr_warmup_decay"];
  o.lr_step_size = c["lr_step_size"];
  o.lr_gamma = c["lr_gamma"];
  o.lr_min = c["lr_min"];
  o.lr_milestones = c["lr_milestones"].get<std::vector<int>>();
  return o;
}

std::string name_of(const nlohmann::json& c) {
  return c.dump().substr(0, c.dump().find("\"rates\""));
}

TEST(TorchvisionLR, GoldenHasEveryScheduleWithAndWithoutEachWarmup) {
  int with_linear = 0, with_constant = 0, without = 0;
  for (const auto& c : golden_configs()) {
    const int warmup = c["lr_warmup_epochs"];
    (warmup == 0 ? without : c["lr_warmup_method"] == "linear" ? with_linear : with_constant)++;
  }
  EXPECT_GE(without, 4);
  EXPECT_GE(with_linear, 4);
  EXPECT_GE(with_constant, 4);
}

// The schedulers in double, fed torch's own double rate, give torch's rates bit for bit: the
// same operations in the same order, with the same libm's cos and pow (glibc's, whose results
// are correctly rounded). Exact, because CosineAnnealingLR's closed form, used in place of its
// recursive one, is off by only a unit or two in the last place.
TEST(TorchvisionLR, SchedulersReplayPyTorchsRatesBitForBit) {
  for (const auto& c : golden_configs()) {
    const std::vector<double> torch = c["rates"];
    torch_lr::ParamGroup group{c["lr"].get<double>(), c["lr"].get<double>()};
    auto schedulers = torchvision_lr_schedulers(options_of(c), c["epochs"].get<int>(), group);
    for (size_t epoch = 0; epoch < torch.size(); ++epoch) {
      EXPECT_EQ(group.lr, torch[epoch]) << name_of(c) << " epoch " << epoch;
      schedulers->step();
    }
  }
}

// What the optimizer gets: the epoch's rate at every step of it. xtrain's --lr and its rate are
// float32, torch's float64; a float32 rounds each to a relative 6e-8, and a rate derived from
// them, whose factors are doubles as torch's, stays within a few of those. 1e-6 is above that and
// far below any rate torch's schedules could confuse (an epoch apart, they differ by a percent).
TEST(TorchvisionLR, EveryStepOfAnEpochUsesTheRateTorchGivesTheEpoch) {
  const int64_t steps_per_epoch = 3;
  for (const auto& c : golden_configs()) {
    LRSchedulerOptions o;
    o.type = "none";
    o.lr = c["lr"].get<float>();
    o.torchvision = options_of(c);
    o.num_epochs = c["epochs"];
    o.steps_per_trained_epoch = steps_per_epoch;
    o.steps_per_epoch = 1000;  // the data's epoch, which only torch_xla's schedule counts
    auto scheduler = make_lr_scheduler(o);
    const std::vector<double> torch = c["rates"];
    for (size_t epoch = 0; epoch < torch.size(); ++epoch) {
      for (int64_t step = 0; step < steps_per_epoch; ++step) {
        EXPECT_NEAR(scheduler->lr(), torch[epoch], 1e-6 * torch[epoch])
            << name_of(c) << " epoch " << epoch << " step " << step;
        scheduler->step();
      }
    }
  }
}

// seek(k) leaves a scheduler as k steps do: the same rate, bitwise, now and at every later step
// (a run resumed at any step, also mid-epoch, goes on as an uninterrupted one).
TEST(TorchvisionLR, SeekEqualsStepping) {
  const int64_t steps_per_epoch = 4;
  const int num_epochs = 12;
  for (const auto& c : golden_configs()) {
    const TorchvisionLROptions o = options_of(c);
    const int epochs = c["epochs"];
    const float lr = c["lr"].get<float>();
    for (int64_t k = 0; k <= num_epochs * steps_per_epoch; ++k) {
      TorchvisionLR stepped(o, lr, epochs, steps_per_epoch);
      for (int64_t i = 0; i < k; ++i) stepped.step();
      TorchvisionLR sought(o, lr, epochs, steps_per_epoch);
      sought.step();  // seek() starts afresh, whatever was stepped before
      sought.seek(k);
      for (int i = 0; i < 2 * steps_per_epoch; ++i) {
        ASSERT_EQ(sought.lr(), stepped.lr()) << name_of(c) << " seek " << k << " + " << i;
        sought.step();
        stepped.step();
      }
    }
  }
}

void expect_error_naming(const std::string& flag, const TorchvisionLROptions& o, int epochs = 10) {
  try {
    torch_lr::ParamGroup group{0.1, 0.1};
    torchvision_lr_schedulers(o, epochs, group);
    ADD_FAILURE() << "accepted, expected an error naming " << flag;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(flag), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TorchvisionLROptions steplr() {
  TorchvisionLROptions o;
  o.lr_scheduler = "steplr";
  return o;
}

TEST(TorchvisionLR, BadValuesAreOneLineNamingTheFlag) {
  TorchvisionLROptions o = steplr();
  o.lr_scheduler = "cosine";
  expect_error_naming("--lr_scheduler", o);
  o = steplr();
  o.lr_warmup_method = "exponential";
  expect_error_naming("--lr_warmup_method", o);
  o = steplr();
  o.lr_warmup_epochs = -1;
  expect_error_naming("--lr_warmup_epochs", o);
  for (double decay : {0.0, 1.5, std::nan("")}) {
    o = steplr();
    o.lr_warmup_decay = decay;
    expect_error_naming("--lr_warmup_decay", o);
  }
  o = steplr();
  o.lr_step_size = 0;  // StepLR takes the epoch modulo the step size
  expect_error_naming("--lr_step_size", o);
  for (double gamma : {0.0, -0.5, 2.0, std::nan("")}) {
    o = steplr();
    o.lr_gamma = gamma;
    expect_error_naming("--lr_gamma", o);
  }
  o = steplr();
  o.lr_scheduler = "cosineannealinglr";
  o.lr_min = std::numeric_limits<double>::infinity();
  expect_error_naming("--lr_min", o);
}

TEST(TorchvisionLR, MultiStepNeedsIncreasingMilestonesFromOne) {
  TorchvisionLROptions o = steplr();
  o.lr_scheduler = "multisteplr";
  expect_error_naming("--lr_milestones", o);  // none
  o.lr_milestones = {150, 150};
  expect_error_naming("--lr_milestones", o);
  o.lr_milestones = {225, 150};
  expect_error_naming("--lr_milestones", o);
  o.lr_milestones = {0, 150};
  expect_error_naming("--lr_milestones", o);
}

// T_max = epochs - warmup epochs; torch divides by it.
TEST(TorchvisionLR, CosineNeedsAnEpochAfterTheWarmup) {
  TorchvisionLROptions o = steplr();
  o.lr_scheduler = "cosineannealinglr";
  o.lr_warmup_epochs = 5;
  expect_error_naming("--num_epochs", o, 5);
  expect_error_naming("--lr_warmup_epochs", o, 3);
  torch_lr::ParamGroup group{0.1, 0.1};
  EXPECT_NO_THROW(torchvision_lr_schedulers(o, 6, group));
}

TEST(TorchvisionLR, TorchXlasTypeAndTorchvisionsSchedulerAreOneOrTheOther) {
  LRSchedulerOptions o;
  o.type = "WarmupAndExponentialDecayScheduler";
  o.torchvision = steplr();
  try {
    make_lr_scheduler(o);
    ADD_FAILURE() << "both schedules accepted";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("--lr_scheduler_type"), std::string::npos) << message;
    EXPECT_NE(message.find("--lr_scheduler="), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace xtrain
