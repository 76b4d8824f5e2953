// A real model must be able to memorize one batch: resnet20 from the zoo, one fixed batch of
// random images with random labels, plain SGD steps. If any gradient were wrong or wired to the
// wrong buffer, the loss would stall far above zero.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "lib/graph/replica.h"
#include "lib/nn/cross_entropy_loss.h"
#include "lib/optim/sgd.h"
#include "models/registry.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

const CrossEntropyLoss kLoss("loss", /*label_smoothing=*/0.0f);

TEST(Overfit, Resnet20MemorizesOneRandomBatch) {
  constexpr int kClasses = 10, kBatch = 16, kSide = 16;
  Replica replica(build_model("resnet20", kClasses), /*kernel_threads=*/2);
  ParamStore& store = replica.store();
  store.initialize(42);
  Plan& plan = replica.plan_for(Shape{kBatch, kSide, kSide, 3}, PlanMode::kTrain, &kLoss);
  const std::vector<float> images = testing::random_floats(plan.input().numel(), 5);
  plan.set_images(0, kBatch, images.data());
  for (int i = 0; i < kBatch; ++i) plan.labels()[i] = (i * 7 + 3) % kClasses;

  testing::PoolExec pool(2);
  const Exec ex = pool.exec();
  SGD sgd(/*momentum=*/0.9f, /*nesterov=*/false,
          {ParamTensor{0, store.num_params(), /*weight_decay=*/0.0f}});
  float first_loss = 0.0f, loss = 0.0f;
  for (int step = 0; step < 150; ++step) {
    store.zero_grads();
    plan.forward(ex);
    loss = plan.loss();
    if (step == 0) first_loss = loss;
    plan.backward(ex);
    sgd.step(store.params(), store.grads(), 0.05f, step + 1, ex);
  }
  EXPECT_NEAR(first_loss, std::log(10.0f), 1.0f);  // about chance at the start
  EXPECT_LT(loss, 0.05f) << "started at " << first_loss;
}

}  // namespace
}  // namespace xtrain
