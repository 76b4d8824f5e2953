// Every --opt against PyTorch over three steps (tests/golden/optimizers.json, written by
// scripts/make_optimizer_golden.py): three tensors of one flat buffer at their own weight
// decays, given gradients and float32 learning rates. torch rounds each operation to float32 as
// xtrain does, but its vectorized kernels fuse some multiply-adds and xtrain's may not: a few
// units in the last place, hence the tolerance.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lib/optim/optimizer.h"
#include "tests/models/golden_file.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

constexpr float kRtol = 2e-6f, kAtol = 1e-7f;

std::vector<ParamTensor> tensors_of(const nlohmann::json& golden) {
  std::vector<ParamTensor> tensors;
  size_t offset = 0;
  for (const nlohmann::json& t : golden["tensors"]) {
    tensors.push_back({offset, t["size"], t["weight_decay"], t["adapted"]});
    offset += tensors.back().size;
  }
  return tensors;
}

TEST(OptimizerGolden, EveryOptimizerTakesTorchsThreeSteps) {
  const nlohmann::json golden = testing::load_golden_file("optimizers.json");
  for (const nlohmann::json& c : golden["cases"]) {
    OptimizerOptions options;
    options.name = c["opt"];
    options.momentum = c["momentum"];
    options.nesterov = c["nesterov"];
    options.trust_coefficient = golden["trust_coefficient"];
    const std::string what = options.name + (options.nesterov ? " nesterov" : "") + " momentum " +
                             std::to_string(options.momentum);
    std::unique_ptr<Optimizer> optimizer = make_optimizer(options, tensors_of(golden));
    std::vector<float> params = golden["params"];
    for (int step = 0; step < 3; ++step) {
      const std::vector<float> grads = golden["grads"][step];
      optimizer->step(params.data(), grads.data(), golden["lrs"][step], step + 1, Exec{});
      const nlohmann::json& expected = c["steps"][step];
      const std::string at = what + ", step " + std::to_string(step + 1);
      testing::expect_close(params, expected["params"].get<std::vector<float>>(), kRtol, kAtol,
                            (at + ", params").c_str());
      const std::vector<StateBuffer> state = optimizer->state();
      ASSERT_EQ(state.size(), expected["state"].size()) << at;
      for (const StateBuffer& buffer : state) {
        ASSERT_TRUE(expected["state"].contains(buffer.name)) << at << ": " << buffer.name;
        testing::expect_close(std::vector<float>(buffer.values, buffer.values + buffer.size),
                              expected["state"][buffer.name].get<std::vector<float>>(), kRtol,
                              kAtol, (at + ", " + buffer.name).c_str());
      }
    }
  }
}

}  // namespace
}  // namespace xtrain
