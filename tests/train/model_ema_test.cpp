// --model_ema against torchvision: the decay adjusted for the global batch, and the average's
// updates over a tiny model's parameters, BatchNorm statistics and num_batches_tracked, warmup
// resets included, bitwise equal to tests/golden/model_ema.json (scripts/make_ema_golden.py, which
// runs torch's AveragedModel). Also: updates every --model_ema_steps batches, swaps that restore,
// and the bytes the memory plan counts.
#include "lib/train/model_ema.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lib/graph/graph_builder.h"
#include "tests/models/golden_file.h"

namespace xtrain {
namespace {

// Read once, and a reference: a loop over one of its parts outlives no temporary.
const nlohmann::json& golden() {
  static const nlohmann::json file = testing::load_golden_file("model_ema.json");
  return file;
}

// The golden's model: Conv2d(3, 4, 3, bias=False), BatchNorm2d(4), pooling, Linear(4, 3).
std::shared_ptr<const Graph> tiny_model() {
  GraphBuilder g(3);
  Value x = g.conv2d("0", g.input(), 4, 3);
  x = g.batchnorm("1", x);
  x = g.global_avg_pool_flatten("2", x);
  g.linear("4", x, 3);
  return g.finish();
}

ParamSizes sizes_of(ParamStore& store) {
  ParamSizes s;
  s.params = store.num_params();
  s.buffers = store.num_buffers();
  s.counters = store.num_counters();
  return s;
}

// Writes one kind of the golden's flat values into the store's array of that kind.
void set_model(ParamStore& store, const nlohmann::json& kinds) {
  const auto params = kinds["params"].get<std::vector<float>>();
  const auto buffers = kinds["buffers"].get<std::vector<float>>();
  const auto counters = kinds["counters"].get<std::vector<int64_t>>();
  ASSERT_EQ(params.size(), store.num_params());
  ASSERT_EQ(buffers.size(), store.num_buffers());
  ASSERT_EQ(counters.size(), store.num_counters());
  std::copy(params.begin(), params.end(), store.params());
  std::copy(buffers.begin(), buffers.end(), store.buffers());
  std::copy(counters.begin(), counters.end(), store.counters());
}

TEST(ModelEma, DecayIsAdjustedForTheGlobalBatchAsTorchvisionDoes) {
  for (const auto& c : golden()["decays"]) {
    ModelEmaOptions o;
    o.enabled = true;
    o.steps = c["steps"];
    o.decay = c["model_ema_decay"];
    EXPECT_EQ(adjusted_ema_decay(o, c["global_batch"], c["epochs"]), c["decay"].get<double>())
        << c.dump();
  }
}

TEST(ModelEma, UpdatesMatchTorchsAveragedModelBitwise) {
  const nlohmann::json g = golden();
  const std::shared_ptr<const Graph> graph = tiny_model();
  ParamStore model(*graph);
  ModelEma ema(sizes_of(model), g["decay"].get<double>());
  int update = 0;
  for (const auto& u : g["updates"]) {
    SCOPED_TRACE(update++);
    set_model(model, u["model"]);
    ema.after_step(model, /*batch=*/0, /*steps=*/1, u["warmup"].get<bool>());
    EXPECT_EQ(ema.n_averaged(), u["n_averaged"].get<int64_t>());
    const AveragedModelState& s = *ema.state();
    EXPECT_EQ(std::vector<float>(s.params, s.params + model.num_params()),
              u["ema"]["params"].get<std::vector<float>>());
    EXPECT_EQ(std::vector<float>(s.buffers, s.buffers + model.num_buffers()),
              u["ema"]["buffers"].get<std::vector<float>>());
    EXPECT_EQ(std::vector<int64_t>(s.counters, s.counters + model.num_counters()),
              u["ema"]["counters"].get<std::vector<int64_t>>());
  }
}

TEST(ModelEma, UpdatesEveryStepsBatchesFromTheFirst) {
  const std::shared_ptr<const Graph> graph = tiny_model();
  ParamStore model(*graph);
  model.initialize(7);
  ModelEma ema(sizes_of(model), 0.5);
  for (int64_t batch = 0; batch < 7; ++batch) ema.after_step(model, batch, 3, false);
  EXPECT_EQ(ema.n_averaged(), 3);  // batches 0, 3 and 6
}

TEST(ModelEma, SwappingTwiceRestoresBothAndOnceExchangesThem) {
  const std::shared_ptr<const Graph> graph = tiny_model();
  ParamStore model(*graph);
  model.initialize(1);
  ModelEma ema(sizes_of(model), 0.9);
  ema.update(model);  // a copy
  const std::vector<float> first(model.params(), model.params() + model.num_params());
  model.initialize(2);
  const std::vector<float> second(model.params(), model.params() + model.num_params());
  {
    const EmaSwap swap(ema, model);
    EXPECT_EQ(std::vector<float>(model.params(), model.params() + model.num_params()), first);
  }
  EXPECT_EQ(std::vector<float>(model.params(), model.params() + model.num_params()), second);
}

TEST(ModelEma, HoldsTheBytesTheMemoryPlanCounts) {
  const std::shared_ptr<const Graph> graph = tiny_model();
  const ParamSizes sizes = ParamStore::sizes_for(*graph);
  ModelEma ema(sizes, 0.9);
  EXPECT_EQ(ema.bytes(), ModelEma::bytes_for(sizes));
  EXPECT_EQ(ModelEma::bytes_for(sizes),
            (sizes.params + sizes.buffers) * sizeof(float) + sizes.counters * sizeof(int64_t));
}

TEST(ModelEma, MakesNothingWithoutTheFlagAndACopyOfTheModelWithIt) {
  const std::shared_ptr<const Graph> graph = tiny_model();
  ParamStore model(*graph);
  model.initialize(3);
  ModelEmaOptions o;
  EXPECT_EQ(make_model_ema(o, model, 256, 90), nullptr);
  o.enabled = true;
  const std::unique_ptr<ModelEma> ema = make_model_ema(o, model, 256, 90);
  ASSERT_NE(ema, nullptr);
  EXPECT_EQ(ema->n_averaged(), 0);
  EXPECT_EQ(std::vector<float>(ema->state()->params, ema->state()->params + model.num_params()),
            std::vector<float>(model.params(), model.params() + model.num_params()));
}

}  // namespace
}  // namespace xtrain
