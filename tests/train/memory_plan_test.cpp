// The memory plan: its estimate against the resident memory a replica and its training plan
// really take, and the choice of cores with injected budgets.
#include "lib/train/memory_plan.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <fstream>
#include <string>

#include "lib/base/address_space.h"
#include "lib/base/check.h"
#include "lib/graph/replica.h"
#include "lib/nn/cross_entropy_loss.h"
#include "lib/parallel/mesh.h"
#include "lib/train/batch_buffer.h"
#include "lib/train/log_lines.h"
#include "lib/train/model_ema.h"
#include "models/registry.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

const CrossEntropyLoss kLoss("loss", /*label_smoothing=*/0.0f);

// VmRSS of this process, in bytes.
size_t resident_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  size_t kilobytes = 0;
  while (status >> key) {
    if (key == "VmRSS:" && status >> kilobytes) return kilobytes * 1024;
    status.ignore(1 << 20, '\n');
  }
  ADD_FAILURE() << "no VmRSS in /proc/self/status";
  return 0;
}

// The resident memory a replica and one training step at this batch take: every buffer is
// allocated and touched (the step writes every arena buffer). The process's own overhead is
// not part of the growth, so it is left out of the estimate too.
size_t measured_step_bytes(const std::shared_ptr<const Graph>& graph, const Shape& input) {
  // Fresh pages for every large allocation: memory freed by earlier tests must not be reused
  // (it is resident already and would hide growth).
  mallopt(M_MMAP_THRESHOLD, 64 * 1024);
  const size_t before = resident_bytes();
  Replica replica(graph);
  replica.store().initialize(1);
  Plan& plan = replica.plan_for(input, PlanMode::kTrain, &kLoss);
  const std::vector<float> image = testing::random_floats(plan.input().numel(), 2);
  plan.set_images(0, plan.input().shape[0], image.data());
  const Exec ex;
  replica.store().zero_grads();
  plan.forward(ex);
  plan.backward(ex);
  return resident_bytes() - before;
}

struct RssCase {
  const char* model;
  int image_size, batch_size;
};

class MemoryEstimate : public ::testing::TestWithParam<RssCase> {};

TEST_P(MemoryEstimate, IsWithinTenPercentOfTheMeasuredRssGrowth) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizers' shadow memory and allocators change the resident set measured here";
#endif
  const RssCase c = GetParam();
  const std::shared_ptr<const Graph> graph = build_model(c.model, 1000);
  MemoryPlanOptions options;
  options.image_size = c.image_size;
  const MemoryPlan memory(graph, options);
  const double estimate = Replica::state_bytes_for(*graph) +
                          memory.plan_bytes(c.batch_size, /*training=*/true, /*kernel_threads=*/1);
  const double measured =
      measured_step_bytes(graph, Shape{c.batch_size, c.image_size, c.image_size, 3});
  std::printf("%s %dx%d batch %d: estimate %.1f MB, measured %.1f MB (%+.1f%%)\n", c.model,
              c.image_size, c.image_size, c.batch_size, estimate / (1 << 20), measured / (1 << 20),
              100.0 * (estimate - measured) / measured);
  EXPECT_NEAR(estimate, measured, 0.1 * measured);
}

INSTANTIATE_TEST_SUITE_P(Models, MemoryEstimate,
                         ::testing::Values(RssCase{"resnet20", 32, 64},
                                           RssCase{"resnet20", 32, 256},
                                           RssCase{"resnet50", 224, 2},
                                           RssCase{"resnet50", 224, 8}));

// A small model, so that each fit below is cheap to plan.
MemoryPlan small_plan() {
  MemoryPlanOptions options;
  options.image_size = 32;
  options.test_set_batch_size = 16;
  return MemoryPlan(build_model("resnet20", 10), options);
}

TEST(MemoryPlan, ANeedGrowsWithTheBatchAndTheCores) {
  const MemoryPlan plan = small_plan();
  EXPECT_LT(plan.total(1, 16), plan.total(1, 32));
  EXPECT_LT(plan.total(1, 32), plan.total(2, 32));
  EXPECT_EQ(plan.total(2, 32), MemoryPlan::kProcessBytes + 2 * plan.core(2, 32).total());
}

// A core's batches are the trainer's batch buffer, for the larger of its training and test
// batches, and what its sources hold ahead; its decoding is their allowance.
TEST(MemoryPlan, AddsUpWhatEachPartCountsOfItself) {
  MemoryPlanOptions options;
  options.image_size = 32;
  const auto graph = build_model("resnet20", 10);
  const CoreMemory fake = MemoryPlan(graph, options).core(1, 32);
  options.partial_train_batch = [](int num_cores, int batch) { return batch / 2; };
  const CoreMemory partial = MemoryPlan(graph, options).core(1, 32);
  EXPECT_EQ(
      partial.plans,
      fake.plans + MemoryPlan(graph, options).plan_bytes(16, true, Mesh::threads_per_core(1)));
  EXPECT_EQ(fake.replica, Replica::state_bytes_for(*graph));
  const size_t params = ParamStore::sizes_for(*graph).params;
  EXPECT_EQ(fake.optimizer, params * sizeof(float));  // SGD's momentum
  EXPECT_EQ(fake.ema, 0u);
  MemoryPlanOptions averaged = options;
  averaged.model_ema = true;  // each core's average of its replica
  const CoreMemory with_ema = MemoryPlan(graph, averaged).core(1, 32);
  EXPECT_EQ(with_ema.ema, ModelEma::bytes_for(ParamStore::sizes_for(*graph)));
  EXPECT_EQ(with_ema.total(), partial.total() + with_ema.ema);
  const size_t float_buffer = batch_buffer_size(*graph, Precision::kFloat32, 32, 64).image_bytes();
  EXPECT_EQ(fake.batches, float_buffer);
  EXPECT_EQ(fake.decoding, 0u);
  // Image folders: each source at its own batch size.
  options.train_source_memory = [](int batch) { return SourceMemory{1000 * size_t(batch), 7, 2}; };
  options.test_source_memory = [](int batch) { return SourceMemory{10 * size_t(batch), 5, 2}; };
  const CoreMemory folders = MemoryPlan(graph, options).core(1, 32);
  EXPECT_EQ(folders.batches, float_buffer + 1000 * 32 + 10 * 64);
  EXPECT_EQ(folders.decoding, 12u);
  options.precision = Precision::kBFloat16;  // the trainer's buffer in bfloat16
  EXPECT_EQ(MemoryPlan(graph, options).core(1, 32).batches,
            folders.batches - float_buffer +
                batch_buffer_size(*graph, Precision::kBFloat16, 32, 64).image_bytes());
  options.trains = false;  // --evaluate compiles no training plan
  EXPECT_LT(MemoryPlan(graph, options).core(1, 32).plans, folders.plans);
  options.optimizer.name = "adamw";  // two moments
  EXPECT_EQ(MemoryPlan(graph, options).core(1, 32).optimizer, 2 * fake.optimizer);
}

// Test images of another side than the training images (--val_crop_size): the evaluation plans
// are planned at the test side, and the batch buffer holds the larger of the two batches.
TEST(MemoryPlan, PlansTestImagesAtTheirOwnSide) {
  MemoryPlanOptions options;
  options.image_size = 32;
  options.test_set_batch_size = 8;
  options.trains = false;  // the test plans alone, to compare them
  const auto graph = build_model("resnet20", 10);
  const int threads = Mesh::threads_per_core(1);
  const MemoryPlan same(graph, options);
  EXPECT_EQ(same.test_image_size(), 32);
  options.test_image_size = 96;
  const MemoryPlan larger(graph, options);
  EXPECT_EQ(larger.test_image_size(), 96);
  EXPECT_EQ(larger.plan_bytes(8, /*training=*/false, threads),
            Plan::arena_bytes_for(*graph, Shape{8, 96, 96, 3}, PlanMode::kEval, nullptr, threads,
                                  Precision::kFloat32));
  EXPECT_EQ(larger.plan_bytes(4, /*training=*/true, threads),
            same.plan_bytes(4, /*training=*/true, threads));  // training keeps its side
  EXPECT_EQ(larger.core(1, 4).plans, larger.plan_bytes(8, false, threads));
  // 8 test images of 96 x 96 outweigh 4 training images of 32 x 32; 64 of these the other way.
  EXPECT_EQ(larger.core(1, 4).batches,
            batch_buffer_size(*graph, Precision::kFloat32, 96, 8).image_bytes());
  EXPECT_EQ(larger.core(1, 128).batches,
            batch_buffer_size(*graph, Precision::kFloat32, 32, 128).image_bytes());
}

// In a job the partial batches come from the shards of every process's replicas, and the
// processes on one machine share its threads (the plans' kernel scratch).
TEST(MemoryPlan, AJobsPartialBatchesComeFromEveryReplica) {
  MemoryPlanOptions options;
  options.image_size = 32;
  options.processes = 3;
  options.local_processes = 2;
  int replicas_asked = 0;
  options.partial_train_batch = [&](int num_replicas, int batch) {
    replicas_asked = num_replicas;
    return batch / 2;
  };
  const auto graph = build_model("resnet20", 10);
  const MemoryPlan plan(graph, options);
  const CoreMemory need = plan.core(2, 32);
  EXPECT_EQ(replicas_asked, 6);
  const int threads = Mesh::threads_per_core(2, 2);
  EXPECT_EQ(need.plans, plan.plan_bytes(32, true, threads) + plan.plan_bytes(16, true, threads));
}

// A 50-image validation set never fills a test batch of 512: its plans are planned at the largest
// shard a core gets, 50 on one core and 25 on two. The loaders' rings still hold batches of 512.
TEST(MemoryPlan, TheTestBatchIsTheLargestACoreGets) {
  MemoryPlanOptions options;
  options.image_size = 32;
  options.test_set_batch_size = 512;
  options.partial_test_batch = [](int num_replicas, int batch) {
    return (50 + num_replicas - 1) / num_replicas % batch;
  };
  const auto graph = build_model("resnet20", 10);
  const MemoryPlan plan(graph, options);
  EXPECT_EQ(plan.test_batch(1), 50);
  EXPECT_EQ(plan.test_batch(2), 25);
  options.trains = false;  // the test plans alone
  const MemoryPlan evaluate(graph, options);
  EXPECT_EQ(evaluate.core(1, 8).plans, evaluate.plan_bytes(50, false, Mesh::threads_per_core(1)));
  EXPECT_EQ(evaluate.core(2, 8).plans, evaluate.plan_bytes(25, false, Mesh::threads_per_core(2)));
  options.test_set_batch_size = 16;  // full batches of 16, then 50 % 16 = 2
  const MemoryPlan sixteen(graph, options);
  EXPECT_EQ(sixteen.test_batch(1), 16);
  EXPECT_EQ(sixteen.core(1, 8).plans, sixteen.plan_bytes(16, false, Mesh::threads_per_core(1)) +
                                          sixteen.plan_bytes(2, false, Mesh::threads_per_core(1)));
}

// Under ulimit -v every thread's stack counts: each core's own and kernel threads, its training
// and test sources' workers, and the process's stop watcher (and in a job its gradient reducer).
TEST(MemoryPlan, ThreadStacksCountEveryThreadARunStarts) {
  MemoryPlanOptions options;
  options.image_size = 32;
  options.train_source_memory = [](int batch) { return SourceMemory{0, 0, 3}; };
  options.test_source_memory = [](int batch) { return SourceMemory{0, 0, 3}; };
  const auto graph = build_model("resnet20", 10);
  const size_t stack = thread_stack_bytes();
  const int kernel_threads = Mesh::threads_per_core(2);
  EXPECT_EQ(MemoryPlan(graph, options).thread_stacks(2, 32),
            (2 * (kernel_threads + 6) + 1) * stack);
  options.train_source_memory = options.test_source_memory = nullptr;  // --fake_data
  options.processes = options.local_processes = 2;
  EXPECT_EQ(MemoryPlan(graph, options).thread_stacks(1, 32),
            (Mesh::threads_per_core(1, 2) + 2) * stack);
}

std::string fit_error(const MemoryPlan& plan, int asked_cores, int max_cores, int batch,
                      size_t available) {
  return testing::error_of([&] { fit_cores(plan, asked_cores, max_cores, batch, available); });
}

TEST(FitCores, AnExplicitRunThatFitsIsKept) {
  const MemoryPlan plan = small_plan();
  const CoreFit fit = fit_cores(plan, 3, 8, 32, plan.total(3, 32));
  EXPECT_EQ(fit.num_cores, 3);
  EXPECT_EQ(fit.total_bytes, plan.total(3, 32));
  EXPECT_EQ(fit.core_bytes, plan.core(3, 32).total());
  EXPECT_EQ(fit.capped_from_bytes, 0u);
}

TEST(FitCores, AnExplicitRunThatDoesNotFitSuggestsTheLargestBatchAndTheMostCores) {
  const MemoryPlan plan = small_plan();
  const size_t available = plan.total(2, 32) + 1000;  // 2 cores fit, 3 do not
  int batch = 1;
  while (plan.total(3, batch + 1) <= available) ++batch;
  const std::string error = fit_error(plan, 3, 8, 32, available);
  EXPECT_EQ(error, fmt::format("3 cores x batch 32 need {}; {} is available: use --batch_size={} "
                               "or --num_cores=2",
                               memory_size(plan.total(3, 32)), memory_size(available), batch))
      << error;
  EXPECT_GT(batch, 1);
  EXPECT_LT(batch, 32);
}

TEST(FitCores, ASuggestionOfZeroIsLeftOut) {
  const MemoryPlan plan = small_plan();
  // One core fits at batch 8, not at 32: no core count helps, a smaller batch does.
  const size_t available = plan.total(1, 8);
  const std::string error = fit_error(plan, 1, 8, 32, available);
  EXPECT_NE(error.find("1 core x batch 32 need"), std::string::npos) << error;
  EXPECT_NE(error.find("use --batch_size=8"), std::string::npos) << error;
  EXPECT_EQ(error.find("--num_cores"), std::string::npos) << error;
}

TEST(FitCores, WithoutNumCoresTheHardwareThreadsAreCappedToWhatFits) {
  const MemoryPlan plan = small_plan();
  const CoreFit fit = fit_cores(plan, 0, 4, 32, plan.total(2, 32));
  EXPECT_EQ(fit.num_cores, 2);
  EXPECT_EQ(fit.capped_from_bytes, plan.total(4, 32));
  EXPECT_EQ(fit_cores(plan, 0, 4, 32, plan.total(4, 32)).num_cores, 4);
  EXPECT_EQ(fit_cores(plan, 0, 4, 32, plan.total(4, 32)).capped_from_bytes, 0u);
}

// The suggestion is the largest batch that fits: at least 4 here, more where a larger batch's
// training plan still needs no more than the test plan (the two share their pages).
TEST(FitCores, WhenNotEvenOneCoreFitsTheErrorSuggestsABatch) {
  const MemoryPlan plan = small_plan();
  const size_t budget = plan.total(1, 4);
  int largest = 4;
  while (plan.total(1, largest + 1) <= budget) ++largest;
  const std::string error = fit_error(plan, 0, 4, 32, budget);
  EXPECT_NE(error.find("1 core x batch 32 need"), std::string::npos) << error;
  const std::string advice = "use --batch_size=" + std::to_string(largest);  // the message's end
  ASSERT_GE(error.size(), advice.size()) << error;
  EXPECT_EQ(error.substr(error.size() - advice.size()), advice) << error;
  EXPECT_EQ(error.find("--num_cores"), std::string::npos) << error;
}

TEST(FitCores, ABudgetTooSmallForBatchOneIsAnErrorNotACrash) {
  const MemoryPlan plan = small_plan();
  const std::string error = fit_error(plan, 0, 4, 32, plan.total(1, 1) - 1);
  EXPECT_NE(error.find("not even batch 1 fits on 1 core"), std::string::npos) << error;
  EXPECT_NE(fit_error(plan, 2, 4, 32, 1000).find("not even batch 1 fits on 2 cores"),
            std::string::npos);
}

TEST(FitCores, ATestBatchTooLargeForBatchOneIsNamed) {
  const MemoryPlan plan = small_plan().with_test_set_batch_size(4096);
  const size_t available = small_plan().total(1, 1);  // fits with a test batch of 16
  const std::string error = fit_error(plan, 1, 1, 8, available);
  EXPECT_NE(error.find("not even batch 1 fits on 1 core with --test_set_batch_size=4096: use "
                       "--test_set_batch_size="),
            std::string::npos)
      << error;
  const int fitting = std::stoi(error.substr(error.rfind('=') + 1));
  EXPECT_GE(fitting, 16);
  EXPECT_LE(plan.with_test_set_batch_size(fitting).total(1, 1), available);
  EXPECT_GT(plan.with_test_set_batch_size(fitting + 1).total(1, 1), available);
}

// --cache_dataset's images are the process's, counted once whatever the cores.
TEST(MemoryPlan, CountsTheCacheOncePerProcess) {
  MemoryPlanOptions options;
  options.image_size = 32;
  const auto graph = build_model("resnet20", 10);
  const MemoryPlan plain(graph, options);
  options.cache_bytes = 5000;
  const MemoryPlan cached(graph, options);
  for (int cores : {1, 3}) EXPECT_EQ(cached.total(cores, 16), plain.total(cores, 16) + 5000);
  EXPECT_EQ(cached.core(3, 16).total(), plain.core(3, 16).total());
  const CoreFit fit = fit_cores(cached, 3, 8, 16, std::nullopt);
  EXPECT_EQ(fit.cache_bytes, 5000u);
  EXPECT_EQ(fit.total_bytes, cached.total(3, 16));
}

// --fake_images=noise's samples are the process's too: counted once whatever the cores, and not
// as a cache that leaving out --cache_dataset would free.
TEST(MemoryPlan, CountsTheNoiseSamplesOncePerProcess) {
  MemoryPlanOptions options;
  options.image_size = 32;
  const auto graph = build_model("resnet20", 10);
  const MemoryPlan plain(graph, options);
  options.fake_image_bytes = 7000;
  const MemoryPlan noise(graph, options);
  for (int cores : {1, 3}) EXPECT_EQ(noise.total(cores, 16), plain.total(cores, 16) + 7000);
  EXPECT_EQ(noise.core(3, 16).total(), plain.core(3, 16).total());
  EXPECT_EQ(noise.cache_bytes(), 0u);
}

// A cache that does not fit beside even one core at batch 1 stops the run, naming it.
TEST(FitCores, ACacheThatDoesNotFitIsNamed) {
  MemoryPlanOptions options;
  options.image_size = 32;
  const auto graph = build_model("resnet20", 10);
  options.cache_bytes = size_t{8} << 30;
  const MemoryPlan cached(graph, options);
  const size_t available = cached.total(1, 32) - options.cache_bytes;  // fits without the cache
  const std::string error = fit_error(cached, 0, 4, 32, available);
  EXPECT_EQ(error, fmt::format("1 core x batch 32 need {}, --cache_dataset's decoded images 8.0 "
                               "GB of it; {} is available: leave out --cache_dataset",
                               memory_size(cached.total(1, 32)), memory_size(available)))
      << error;
}

TEST(FitCores, AnUnknownBudgetChecksNothing) {
  const MemoryPlan plan = small_plan();
  EXPECT_EQ(fit_cores(plan, 3, 8, 32, std::nullopt).num_cores, 3);
  EXPECT_EQ(fit_cores(plan, 0, 8, 32, std::nullopt).num_cores, 8);
}

}  // namespace
}  // namespace xtrain
