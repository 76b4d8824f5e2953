#include "lib/graph/plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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

  const float step = 2e-3f;
  int failures = 0;
  for (size_t i = 0; i < store.num_params(); ++i) {
    float& p = store.params()[i];
    const float original = p;
    p = original + step;
    const double plus = plan.forward(ex);
    p = original - step;
    const double minus = plan.forward(ex);
    p = original;
    const double numeric = (plus - minus) / (2.0 * step);
    if (std::fabs(analytic[i] - numeric) > 2e-3 + 2e-2 * std::fabs(numeric) && ++failures <= 10) {
      ADD_FAILURE() << "param " << i << ": backward " << analytic[i] << ", finite difference "
                    << numeric;
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
