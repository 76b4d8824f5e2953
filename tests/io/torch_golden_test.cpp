// Against PyTorch: scripts/make_torch_fixture.py wrote the state_dict of tiny_resnet built in
// PyTorch, an input batch and its eval-mode logits. Loading those weights and running our
// forward pass must give PyTorch's logits, which only happens if every name, every layout
// (OIHW conv weights, [out, in] fc weight) and every BatchNorm buffer lands in the right place.
#include <gtest/gtest.h>

#include <cstring>

#include "lib/graph/replica.h"
#include "lib/io/checkpoint.h"
#include "lib/io/safetensors.h"
#include "tests/graph/tiny_resnet.h"
#include "tests/io/io_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

const std::string kFixtures = XTRAIN_SOURCE_DIR "/tests/io/fixtures/";

std::vector<float> floats(const SafeTensor& t) {
  std::vector<float> out(t.data.size() / sizeof(float));
  std::memcpy(out.data(), t.data.data(), t.data.size());
  return out;
}

TEST(TorchGolden, PyTorchWeightsGivePyTorchLogits) {
  Replica replica(testing::tiny_resnet(5));
  replica.store().initialize(1);
  EXPECT_TRUE(load_pretrained(kFixtures + "tiny_resnet_torch.safetensors", replica, false).empty());
  ParamStore& store = replica.store();
  EXPECT_EQ(*store.counter(*store.find("neck.bn2.num_batches_tracked")), 17);

  const Safetensors io = read_safetensors(kFixtures + "tiny_resnet_torch_io.safetensors");
  const std::vector<float> nchw = floats(io.tensors.at("input"));       // [2, 3, 8, 8]
  const std::vector<float> expected = floats(io.tensors.at("logits"));  // [2, 5]
  Plan& plan = replica.plan_for(Shape{2, 8, 8, 3}, PlanMode::kEval);
  std::vector<float> nhwc(nchw.size());
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 3; ++c)
      for (int i = 0; i < 64; ++i) nhwc[(n * 64 + i) * 3 + c] = nchw[(n * 3 + c) * 64 + i];
  plan.set_images(0, 2, nhwc.data());
  plan.forward(Exec{});
  const TensorView logits = plan.logits();
  ASSERT_EQ(logits.numel(), 10);
  testing::expect_close(logits.f32(), expected.data(), 10, 1e-4f, 1e-5f, "logits");
}

// Saved again by us, every tensor PyTorch wrote comes back with the same dtype, shape and bytes.
TEST(TorchGolden, SavingPyTorchWeightsAgainGivesPyTorchsTensors) {
  Replica replica(testing::tiny_resnet(5));
  load_pretrained(kFixtures + "tiny_resnet_torch.safetensors", replica, false);
  testing::TempDir dir;
  save_model(dir.file("again.safetensors"), replica, CheckpointInfo{});

  const Safetensors torch = read_safetensors(kFixtures + "tiny_resnet_torch.safetensors");
  const Safetensors ours = read_safetensors(dir.file("again.safetensors"));
  for (const auto& [name, t] : torch.tensors) {
    const SafeTensor& o = ours.tensors.at(name);
    EXPECT_EQ(o.dtype, t.dtype) << name;
    EXPECT_EQ(o.shape, t.shape) << name;
    EXPECT_EQ(o.data, t.data) << name;
  }
}

}  // namespace
}  // namespace xtrain
