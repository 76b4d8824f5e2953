// The LR schedules against torch_xla's test/schedulers.py WarmupAndExponentialDecayScheduler,
// replayed by hand. With steps_per_epoch 10, 1 warmup epoch, lr 1, divisor 5 every 2 epochs:
//   f(c) = min(1, (c + 1) / 10) in epoch 0, then 5^-(epoch // 2);
// the constructor steps once, and the rate only moves when f moved (so decays land one step
// late, as in the script).
#include "lib/optim/lr_scheduler.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "lib/base/check.h"

namespace xtrain {
namespace {

LRSchedulerOptions warmup_options() {
  LRSchedulerOptions o;
  o.type = "WarmupAndExponentialDecayScheduler";
  o.lr = 1.0f;
  o.steps_per_epoch = 10;
  o.num_warmup_epochs = 1.0f;
  o.divisor = 5.0f;
  o.divide_every_n_epochs = 2;
  return o;
}

// The rate used by optimizer steps 0 .. n-1.
std::vector<float> rates(LRScheduler& s, int n) {
  std::vector<float> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(s.lr());
    s.step();
  }
  return out;
}

TEST(LRScheduler, WarmupRampsLinearlyFromTheSecondCount) {
  auto s = make_lr_scheduler(warmup_options());
  const std::vector<float> r = rates(*s, 12);
  for (int i = 0; i < 9; ++i) EXPECT_FLOAT_EQ(r[i], (i + 2) / 10.0f) << "step " << i;
  EXPECT_FLOAT_EQ(r[9], 1.0f);
  EXPECT_FLOAT_EQ(r[10], 1.0f);  // epoch 1: 5^-(1 // 2) = 1
  EXPECT_FLOAT_EQ(r[11], 1.0f);
}

TEST(LRScheduler, DecaysOneStepAfterEachDivideBoundary) {
  auto s = make_lr_scheduler(warmup_options());
  const std::vector<float> r = rates(*s, 45);
  // Count c reaches 20 (epoch 2) after step 19; the changed rate is picked up one step later.
  EXPECT_FLOAT_EQ(r[19], 1.0f);
  EXPECT_FLOAT_EQ(r[20], 0.2f);
  EXPECT_FLOAT_EQ(r[39], 0.2f);
  EXPECT_FLOAT_EQ(r[40], 0.04f);
}

TEST(LRScheduler, FractionalWarmupMatchesTheScript) {
  LRSchedulerOptions o = warmup_options();
  o.num_warmup_epochs = 0.9f;  // the resnet50 default: 9 warmup steps of 10, capped at max_lr
  auto s = make_lr_scheduler(o);
  const std::vector<float> r = rates(*s, 10);
  EXPECT_NEAR(r[0], 2.0f / 9.0f, 1e-6f);
  EXPECT_NEAR(r[6], 8.0f / 9.0f, 1e-6f);
  EXPECT_FLOAT_EQ(r[7], 1.0f);
  EXPECT_FLOAT_EQ(r[9], 1.0f);
}

TEST(LRScheduler, NoneKeepsTheBaseRate) {
  LRSchedulerOptions o = warmup_options();
  o.type = "none";
  o.lr = 0.3f;
  auto s = make_lr_scheduler(o);
  for (float r : rates(*s, 25)) EXPECT_FLOAT_EQ(r, 0.3f);
}

uint32_t bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// seek(k) leaves a scheduler as k steps do: the same rate, bitwise, now and at every later step
// (so the hidden "rate at the last change" agrees too).
void expect_seek_equals_stepping(const LRSchedulerOptions& o, const std::vector<int64_t>& ks) {
  const int64_t later_steps = 2 * o.steps_per_epoch * o.divide_every_n_epochs + 2;
  for (int64_t k : ks) {
    auto stepped = make_lr_scheduler(o);
    for (int64_t i = 0; i < k; ++i) stepped->step();
    auto sought = make_lr_scheduler(o);
    sought->step();  // seek is absolute: steps taken before do not count
    sought->seek(k);
    for (int64_t later = 0; later < later_steps; ++later) {
      ASSERT_EQ(bits(sought->lr()), bits(stepped->lr())) << "seek(" << k << ") + " << later;
      sought->step();
      stepped->step();
    }
  }
}

TEST(LRScheduler, SeekEqualsSteppingAcrossWarmupAndDecays) {
  expect_seek_equals_stepping(warmup_options(),
                              {0, 1, 8, 9, 10, 11, 19, 20, 21, 39, 40, 41, 57, 200});
}

TEST(LRScheduler, SeekEqualsSteppingWithTheResNet50Recipe) {
  LRSchedulerOptions o = warmup_options();
  o.lr = 0.5f;
  o.steps_per_epoch = 1251;  // ImageNet at a global batch of 1024
  o.num_warmup_epochs = 0.9f;
  o.divide_every_n_epochs = 20;
  expect_seek_equals_stepping(o, {1125, 1126, 1127, 1251, 25019, 25020, 25021, 90 * 1251});
}

TEST(LRScheduler, SeekEqualsSteppingWhenStepsMoveTheRateByLessThanTheThreshold) {
  // The ramp grows 3e-7 per step and each decay moves the rate by 5e-7, under the 1e-6 that
  // makes the optimizer's rate change: it moves every few steps and every other decay.
  LRSchedulerOptions o = warmup_options();
  o.lr = 1e-4f;
  o.steps_per_epoch = 100;
  o.num_warmup_epochs = 3.5f;
  o.divisor = 1.005f;
  o.divide_every_n_epochs = 1;
  expect_seek_equals_stepping(o, {3, 4, 5, 6, 101, 349, 350, 351, 399, 400, 401, 555, 1234});
}

TEST(LRScheduler, SeekEqualsSteppingWithoutWarmupAndARisingRate) {
  LRSchedulerOptions o = warmup_options();
  o.num_warmup_epochs = 0.0f;
  o.divisor = 0.5f;
  o.steps_per_epoch = 5;
  o.divide_every_n_epochs = 3;
  expect_seek_equals_stepping(o, {0, 1, 14, 15, 16, 44, 45, 46, 100});
}

TEST(LRScheduler, SeekOfTheConstantRateChangesNothing) {
  LRSchedulerOptions o = warmup_options();
  o.type = "none";
  expect_seek_equals_stepping(o, {0, 7, 1000});
}

TEST(LRScheduler, UnknownTypeNamesTheFlag) {
  LRSchedulerOptions o = warmup_options();
  o.type = "cosine";
  try {
    make_lr_scheduler(o);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--lr_scheduler_type"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace xtrain
