#include "lib/graph/plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "lib/graph/replica.h"
#include "tests/graph/tiny_resnet.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

constexpr int kClasses = 3;

void fill_batch(Plan& plan, uint32_t seed) {
  TensorView input = plan.input();
  const std::vector<float> x = testing::random_floats(input.numel(), seed);
  std::copy(x.begin(), x.end(), input.data);
  for (int64_t i = 0; i < input.shape[0]; ++i)
    plan.labels()[i] = static_cast<int32_t>(i % kClasses);
}

// The whole network's parameter gradients against central differences of the loss. This covers
// what layer checks cannot: the wiring, the residual gradient sums and the loss at the root.
TEST(Plan, ParameterGradientsOfASmallResNetMatchFiniteDifferences) {
  Replica replica(testing::tiny_resnet(kClasses), /*label_smoothing=*/0.0f);
  ParamStore& store = replica.store();
  store.initialize(7);
  Plan& plan = replica.plan_for(Shape{3, 8, 8, 3}, PlanMode::kTrain);
  fill_batch(plan, 11);
  const Exec ex;

  store.zero_grads();
  plan.forward(ex);
  plan.backward(ex);
  const std::vector<float> analytic(store.grads(), store.grads() + store.num_params());

  // ReLU kinks: with BatchNorm over a few pixels, many pre-activations sit within a step of
  // zero, and a difference that crosses one is off for that parameter and that step. A wiring
  // bug (a lost residual gradient, a wrong buffer) is off for whole layers at every step, so the
  // check is on the whole vector: a small relative error overall and few parameters off.
  // Measured: 1.5% and 50 of 3,399 off; without the residual gradient sum, 68% and 1,062 off.
  auto central_difference = [&](float& p, float step) {
    const float original = p;
    p = original + step;
    const double plus = plan.forward(ex);
    p = original - step;
    const double minus = plan.forward(ex);
    p = original;
    return (plus - minus) / (2.0 * step);
  };
  double error_sq = 0.0, norm_sq = 0.0;
  int off = 0;
  for (size_t i = 0; i < store.num_params(); ++i) {
    // The step nearest to the backward's value: a kink spoils one step, a bug all of them.
    double numeric = 0.0;
    for (float step : {1e-3f, 2e-4f}) {
      const double d = central_difference(store.params()[i], step);
      if (step == 1e-3f || std::fabs(d - analytic[i]) < std::fabs(numeric - analytic[i])) {
        numeric = d;
      }
    }
    error_sq += (analytic[i] - numeric) * (analytic[i] - numeric);
    norm_sq += numeric * numeric;
    if (std::fabs(analytic[i] - numeric) > 2e-3 + 2e-2 * std::fabs(numeric)) ++off;
  }
  const double relative_error = std::sqrt(error_sq / norm_sq);
  std::printf("relative error %g, %d of %zu parameters off\n", relative_error, off,
              store.num_params());
  EXPECT_LT(relative_error, 5e-2);
  EXPECT_LE(off, static_cast<int>(store.num_params() / 20));
}

// Buffers whose lifetimes meet must not share a byte, or one layer would overwrite what another
// still reads; buffers that never meet should share, or the arena grows with the depth.
void expect_live_buffers_disjoint(const Plan& plan) {
  const std::vector<ArenaBuffer>& b = plan.arena_buffers();
  size_t total = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    const size_t end_i = b[i].offset + AlignedBuffer::round_up(b[i].floats);
    EXPECT_LE(end_i * sizeof(float), plan.arena_bytes() + 63);
    total += AlignedBuffer::round_up(b[i].floats);
    for (size_t j = i + 1; j < b.size(); ++j) {
      if (b[i].floats == 0 || b[j].floats == 0) continue;
      if (b[i].last < b[j].first || b[j].last < b[i].first) continue;
      const size_t end_j = b[j].offset + AlignedBuffer::round_up(b[j].floats);
      EXPECT_TRUE(end_i <= b[j].offset || end_j <= b[i].offset)
          << "buffers " << i << " and " << j << " are live together and overlap";
    }
  }
  EXPECT_LT(plan.arena_bytes(), total * sizeof(float)) << "no buffer shares memory";
}

TEST(Plan, BuffersLiveAtTheSameTimeNeverOverlap) {
  Replica replica(testing::tiny_resnet(kClasses), 0.0f);
  expect_live_buffers_disjoint(replica.plan_for(Shape{3, 8, 8, 3}, PlanMode::kTrain));
  expect_live_buffers_disjoint(replica.plan_for(Shape{3, 8, 8, 3}, PlanMode::kEval));
}

// An eval plan keeps no activation for a backward and has no gradients.
TEST(Plan, EvalPlansAreSmallerThanTrainingPlans) {
  Replica replica(testing::tiny_resnet(kClasses), 0.0f);
  const size_t train = replica.plan_for(Shape{4, 16, 16, 3}, PlanMode::kTrain).arena_bytes();
  const size_t eval = replica.plan_for(Shape{4, 16, 16, 3}, PlanMode::kEval).arena_bytes();
  EXPECT_LT(eval, train);
}

// Memory planning asks for arena sizes without compiling: they must be the compiled plans'.
TEST(Plan, ArenaBytesForIsTheCompiledPlansArena) {
  const std::shared_ptr<const Graph> graph = testing::tiny_resnet(kClasses);
  Replica replica(graph, 0.0f);
  for (const Shape& input : {Shape{1, 8, 8, 3}, Shape{5, 16, 16, 3}}) {
    for (PlanMode mode : {PlanMode::kTrain, PlanMode::kEval}) {
      EXPECT_EQ(Plan::arena_bytes_for(*graph, input, mode),
                replica.plan_for(input, mode).arena_bytes())
          << input.str();
    }
  }
}

TEST(Plan, IsCompiledOncePerShapeAndMode) {
  Replica replica(testing::tiny_resnet(kClasses), 0.0f);
  Plan& a = replica.plan_for(Shape{2, 8, 8, 3}, PlanMode::kTrain);
  Plan& b = replica.plan_for(Shape{2, 8, 8, 3}, PlanMode::kTrain);
  EXPECT_EQ(&a, &b);
  replica.plan_for(Shape{1, 8, 8, 3}, PlanMode::kTrain);
  replica.plan_for(Shape{2, 8, 8, 3}, PlanMode::kEval);
  EXPECT_EQ(replica.compiled_plans(), 3);
}

TEST(Plan, TrainingUpdatesBatchNormStatisticsAndEvalUsesThem) {
  Replica replica(testing::tiny_resnet(kClasses), 0.0f);
  ParamStore& store = replica.store();
  store.initialize(3);
  const ParamEntry* mean = store.find("bn1.running_mean");
  const ParamEntry* count = store.find("bn1.num_batches_tracked");
  ASSERT_NE(mean, nullptr);
  ASSERT_NE(count, nullptr);

  Plan& eval = replica.plan_for(Shape{2, 8, 8, 3}, PlanMode::kEval);
  fill_batch(eval, 5);
  eval.forward(Exec{});
  EXPECT_EQ(*store.counter(*count), 0);
  EXPECT_EQ(store.data(*mean)[0], 0.0f);

  Plan& train = replica.plan_for(Shape{2, 8, 8, 3}, PlanMode::kTrain);
  fill_batch(train, 5);
  train.forward(Exec{});
  train.forward(Exec{});
  EXPECT_EQ(*store.counter(*count), 2);
  EXPECT_NE(store.data(*mean)[0], 0.0f);
}

TEST(Plan, ResultsDoNotDependOnTheThreadCount) {
  auto run = [](const Exec& ex) {
    Replica replica(testing::tiny_resnet(kClasses), 0.0f);
    replica.store().initialize(9);
    Plan& plan = replica.plan_for(Shape{4, 8, 8, 3}, PlanMode::kTrain);
    fill_batch(plan, 13);
    plan.forward(ex);
    plan.backward(ex);
    return std::vector<float>(replica.store().grads(),
                              replica.store().grads() + replica.store().num_params());
  };
  testing::PoolExec two(2);
  testing::expect_close(run(Exec{}), run(two.exec()), 1e-5f, 1e-6f, "grads");
}

}  // namespace
}  // namespace xtrain
