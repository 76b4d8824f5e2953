#include "lib/io/checkpoint.h"

#include <gtest/gtest.h>

#include <cstring>

#include "lib/base/check.h"
#include "lib/io/safetensors.h"
#include "lib/optim/sgd.h"
#include "models/registry.h"
#include "tests/graph/tiny_resnet.h"
#include "tests/io/io_test_util.h"
#include "tests/models/golden_file.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using testing::error_of;

// A replica and its optimizer, as a core holds them.
struct RunState {
  explicit RunState(int num_classes)
      : replica(testing::tiny_resnet(num_classes)),
        sgd(0.9f, false, {ParamTensor{0, replica.store().num_params(), 1e-4f}}) {}
  float* momentum() { return sgd.state()[0].values; }

  Replica replica;
  SGD sgd;
};

// A run's state whose every float and counter differs from another seed's.
std::unique_ptr<RunState> filled_state(int num_classes, uint32_t seed) {
  auto state = std::make_unique<RunState>(num_classes);
  ParamStore& store = state->replica.store();
  store.initialize(seed);
  const std::vector<float> buffers = testing::random_floats(store.num_buffers(), seed + 1);
  std::copy(buffers.begin(), buffers.end(), store.buffers());
  const std::vector<float> momentum = testing::random_floats(store.num_params(), seed + 2);
  std::copy(momentum.begin(), momentum.end(), state->momentum());
  for (const ParamEntry& e : store.entries()) {
    if (e.spec.kind == ParamKind::kCounter) *store.counter(e) = 1000 * seed + e.offset;
  }
  return state;
}

// Every float and counter of the replica, as bytes.
std::string store_bytes(RunState& r) {
  ParamStore& s = r.replica.store();
  std::string out(reinterpret_cast<const char*>(s.params()), s.num_params() * sizeof(float));
  out.append(reinterpret_cast<const char*>(s.buffers()), s.num_buffers() * sizeof(float));
  for (const ParamEntry& e : s.entries()) {
    if (e.spec.kind == ParamKind::kCounter) {
      out.append(reinterpret_cast<const char*>(s.counter(e)), sizeof(int64_t));
    }
  }
  return out;
}

// Every float, counter and momentum value, as bytes.
std::string state_bytes(RunState& r) {
  return store_bytes(r) + std::string(reinterpret_cast<const char*>(r.momentum()),
                                      r.replica.store().num_params() * sizeof(float));
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

CheckpointInfo sample_info() {
  CheckpointInfo info;
  info.model = "tiny_resnet";
  info.epoch = 3;
  info.global_step = 1234;
  info.flags = R"({"lr": 0.1, "batch_size": 128})";
  info.best_top1 = 71.25;
  info.precision = "bfloat16";
  info.run_seconds = 3600.5;
  info.top1_milestones = {{1, 40.5, 600.25}, {3, 71.25, 3590.0}};
  return info;
}

TEST(Checkpoint, SaveThenLoadRestoresEveryByte) {
  testing::TempDir dir;
  auto saved = filled_state(5, 1);
  save_checkpoint(dir.file("a.safetensors"), saved->replica, saved->sgd.state(), sample_info());

  auto loaded = filled_state(5, 2);
  ASSERT_NE(state_bytes(*loaded), state_bytes(*saved));
  const CheckpointInfo info = load_checkpoint(dir.file("a.safetensors"), loaded->replica,
                                              loaded->sgd.state(), "tiny_resnet");
  EXPECT_THROW(
      load_checkpoint(dir.file("a.safetensors"), loaded->replica, loaded->sgd.state(), "resnet18"),
      Error);
  EXPECT_EQ(state_bytes(*loaded), state_bytes(*saved));
  EXPECT_EQ(info.model, "tiny_resnet");
  EXPECT_EQ(info.epoch, 3);
  EXPECT_EQ(info.global_step, 1234);
  EXPECT_EQ(info.flags, sample_info().flags);
  EXPECT_EQ(info.best_top1, 71.25);
  EXPECT_EQ(info.precision, "bfloat16");
  EXPECT_EQ(info.run_seconds, 3600.5);
  ASSERT_EQ(info.top1_milestones.size(), 2u);
  EXPECT_EQ(info.top1_milestones[1].epoch, 3);
  EXPECT_EQ(info.top1_milestones[1].top1, 71.25);
  EXPECT_EQ(info.top1_milestones[1].run_seconds, 3590.0);

  save_checkpoint(dir.file("b.safetensors"), loaded->replica, loaded->sgd.state(), info);
  EXPECT_EQ(testing::read_bytes(dir.file("a.safetensors")),
            testing::read_bytes(dir.file("b.safetensors")));
}

TEST(Checkpoint, FileHasTorchvisionNamesShapesAndDtypes) {
  testing::TempDir dir;
  auto state = filled_state(5, 1);
  save_checkpoint(dir.file("a.safetensors"), state->replica, state->sgd.state(), sample_info());
  const Safetensors file = read_safetensors(dir.file("a.safetensors"));

  auto expect_tensor = [&](const std::string& name, DType dtype, std::vector<int64_t> shape) {
    ASSERT_EQ(file.tensors.count(name), 1u) << name;
    EXPECT_EQ(file.tensors.at(name).dtype, dtype) << name;
    EXPECT_EQ(file.tensors.at(name).shape, shape) << name;
  };
  expect_tensor("conv1.weight", DType::kF32, {4, 3, 3, 3});               // OIHW
  expect_tensor("basic.downsample.0.weight", DType::kF32, {8, 4, 1, 1});  // OIHW
  expect_tensor("bn1.running_var", DType::kF32, {4});
  expect_tensor("bn1.num_batches_tracked", DType::kI64, {});
  expect_tensor("fc.weight", DType::kF32, {5, 12});  // [out, in], as nn.Linear
  expect_tensor("fc.bias", DType::kF32, {5});
  expect_tensor("optimizer.momentum_buffer.conv1.weight", DType::kF32, {4, 3, 3, 3});
  expect_tensor("optimizer.momentum_buffer.bn1.weight", DType::kF32, {4});
  EXPECT_EQ(file.tensors.count("optimizer.momentum_buffer.bn1.running_mean"), 0u);

  // Every state_dict entry once, plus one momentum buffer per parameter.
  size_t parameters = 0;
  for (const ParamEntry& e : state->replica.store().entries()) {
    parameters += e.spec.kind == ParamKind::kParameter;
  }
  EXPECT_EQ(file.tensors.size(), state->replica.store().entries().size() + parameters);

  const std::map<std::string, std::string> metadata = {
      {"format_version", "1"},
      {"model", "tiny_resnet"},
      {"epoch", "3"},
      {"global_step", "1234"},
      {"flags", sample_info().flags},
      {"best_top1", "71.25"},
      {"precision", "bfloat16"},
      {"run_seconds", "3600.5"},
      {"top1_milestones", "[[1,40.5,600.25],[3,71.25,3590.0]]"}};
  EXPECT_EQ(file.metadata, metadata);
}

// conv1.weight written in PyTorch's order, element [o][i][y][x] = o*1000 + i*100 + y*10 + x,
// must land at ours [y][x][i][o]; fc.weight [k][f] at [k][f].
TEST(Checkpoint, PretrainedConvWeightsAreTransposedFromOIHW) {
  testing::TempDir dir;
  auto source = filled_state(5, 1);
  save_checkpoint(dir.file("a.safetensors"), source->replica, source->sgd.state(), sample_info());
  Safetensors file = read_safetensors(dir.file("a.safetensors"));
  std::vector<float> oihw(4 * 3 * 3 * 3);
  for (int o = 0; o < 4; ++o)
    for (int i = 0; i < 3; ++i)
      for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x)
          oihw[((o * 3 + i) * 3 + y) * 3 + x] = o * 1000 + i * 100 + y * 10 + x;
  std::memcpy(file.tensors.at("conv1.weight").data.data(), oihw.data(), oihw.size() * 4);
  std::vector<float> fc(5 * 12);
  for (int k = 0; k < 5; ++k)
    for (int f = 0; f < 12; ++f) fc[k * 12 + f] = k * 100 + f;
  std::memcpy(file.tensors.at("fc.weight").data.data(), fc.data(), fc.size() * 4);
  write_safetensors(dir.file("b.safetensors"), file);

  auto target = filled_state(5, 2);
  EXPECT_TRUE(load_pretrained(dir.file("b.safetensors"), target->replica, false).empty());
  ParamStore& store = target->replica.store();
  const float* conv = store.data(*store.find("conv1.weight"));  // [KH, KW, C_in, C_out]
  EXPECT_EQ(conv[((0 * 3 + 0) * 3 + 0) * 4 + 0], 0);
  EXPECT_EQ(conv[((1 * 3 + 2) * 3 + 0) * 4 + 3], 3012);  // y=1 x=2 i=0 o=3
  EXPECT_EQ(conv[((2 * 3 + 0) * 3 + 2) * 4 + 1], 1220);  // y=2 x=0 i=2 o=1
  EXPECT_EQ(conv[((2 * 3 + 2) * 3 + 2) * 4 + 3], 3222);
  const float* fc_weight = store.data(*store.find("fc.weight"));  // [out, in]
  EXPECT_EQ(fc_weight[3 * 12 + 7], 307);
  EXPECT_EQ(fc_weight[4 * 12 + 11], 411);
}

TEST(Checkpoint, PretrainedIgnoresMomentumAndLeavesItAlone) {
  testing::TempDir dir;
  auto source = filled_state(5, 1);
  save_checkpoint(dir.file("a.safetensors"), source->replica, source->sgd.state(), sample_info());
  auto target = filled_state(5, 2);
  const std::vector<float> momentum(target->momentum(),
                                    target->momentum() + target->replica.store().num_params());
  load_pretrained(dir.file("a.safetensors"), target->replica, false);
  EXPECT_EQ(std::memcmp(target->replica.store().params(), source->replica.store().params(),
                        source->replica.store().num_params() * sizeof(float)),
            0);
  EXPECT_TRUE(std::equal(momentum.begin(), momentum.end(), target->momentum()));
}

TEST(Checkpoint, PretrainedListsEveryProblemInOneErrorAndChangesNothing) {
  testing::TempDir dir;
  auto source = filled_state(5, 1);
  save_checkpoint(dir.file("a.safetensors"), source->replica, source->sgd.state(), sample_info());
  Safetensors file = read_safetensors(dir.file("a.safetensors"));
  file.tensors.erase("bn1.bias");
  file.tensors.erase("neck.conv2.weight");
  file.tensors["head.weight"] = {DType::kF32, {1}, std::vector<uint8_t>(4)};
  file.tensors["conv1.weight"].shape = {4, 3, 1, 9};  // the same bytes, another shape
  file.tensors["bn1.num_batches_tracked"].dtype = DType::kF64;
  write_safetensors(dir.file("b.safetensors"), file);

  auto target = filled_state(5, 2);
  const std::string before = state_bytes(*target);
  const std::string message =
      error_of([&] { load_pretrained(dir.file("b.safetensors"), target->replica, false); });
  EXPECT_TRUE(contains(message, dir.file("b.safetensors") + " does not fit the model")) << message;
  EXPECT_TRUE(contains(message, "missing keys: bn1.bias, neck.conv2.weight;")) << message;
  EXPECT_TRUE(contains(message, "unexpected keys: head.weight;")) << message;
  EXPECT_TRUE(contains(message,
                       "conv1.weight is F32 [4, 3, 1, 9] in the file, F32 [4, 3, 3, 3] "
                       "in the model"))
      << message;
  EXPECT_TRUE(contains(message, "bn1.num_batches_tracked is F64 [] in the file, I64 []"))
      << message;
  EXPECT_EQ(state_bytes(*target), before);
}

TEST(Checkpoint, PretrainedWithAnotherClassCountSkipsFcOnlyWhenAsked) {
  testing::TempDir dir;
  auto source = filled_state(5, 1);
  save_checkpoint(dir.file("a.safetensors"), source->replica, source->sgd.state(), sample_info());

  auto target = filled_state(7, 2);
  const std::string message =
      error_of([&] { load_pretrained(dir.file("a.safetensors"), target->replica, false); });
  EXPECT_TRUE(contains(message, "fc.weight is F32 [5, 12] in the file, F32 [7, 12] in the model"))
      << message;

  ParamStore& store = target->replica.store();
  const ParamEntry& fc = *store.find("fc.weight");
  const std::vector<float> fc_before(store.data(fc), store.data(fc) + 7 * 12);
  EXPECT_EQ(load_pretrained(dir.file("a.safetensors"), target->replica, true),
            (std::vector<std::string>{"fc.weight", "fc.bias"}));
  EXPECT_TRUE(std::equal(fc_before.begin(), fc_before.end(), store.data(fc)));
  const ParamEntry& conv = *store.find("neck.conv3.weight");
  EXPECT_EQ(std::memcmp(store.data(conv), source->replica.store().data(conv),
                        conv.spec.shape.numel() * sizeof(float)),
            0);
}

// SqueezeNet's classifier is a 1x1 convolution, classifier.1: that is what another class count
// re-initializes, not a tensor named fc.
TEST(Checkpoint, PretrainedSkipsTheModelsOwnClassifier) {
  testing::TempDir dir;
  Replica source(build_model("squeezenet1_1", 10));
  source.store().initialize(1);
  save_checkpoint(dir.file("a.safetensors"), source, /*optimizer=*/{}, sample_info());
  Replica replica(build_model("squeezenet1_1", 4));
  replica.store().initialize(2);
  EXPECT_EQ(load_pretrained(dir.file("a.safetensors"), replica, true),
            (std::vector<std::string>{"classifier.1.weight", "classifier.1.bias"}));
  const ParamEntry& squeeze = *replica.store().find("features.3.squeeze.weight");
  EXPECT_EQ(std::memcmp(replica.store().data(squeeze), source.store().data(squeeze),
                        squeeze.spec.shape.numel() * sizeof(float)),
            0);
}

// model_best's format: exactly a state_dict, so PyTorch's load_state_dict(strict=True) takes it.
TEST(Checkpoint, ModelFileHoldsTorchvisionsStateDictAlone) {
  testing::TempDir dir;
  Replica replica(build_model("resnet18", 1000));
  save_model(dir.file("model.safetensors"), replica, sample_info());
  const Safetensors file = read_safetensors(dir.file("model.safetensors"));
  std::map<std::string, std::vector<int64_t>> torchvision;
  const nlohmann::json golden = testing::load_golden_file("state_dict_keys.json");
  for (const auto& key : golden["resnet18"]) {
    torchvision[key[0].get<std::string>()] = key[1].get<std::vector<int64_t>>();
  }
  std::map<std::string, std::vector<int64_t>> ours;
  for (const auto& [name, tensor] : file.tensors) ours[name] = tensor.shape;
  EXPECT_EQ(ours, torchvision);
  EXPECT_EQ(file.metadata.at("model"), "tiny_resnet");  // a checkpoint's metadata
  EXPECT_EQ(file.metadata.at("epoch"), "3");
}

// model_best starts other runs (--pretrained) but resumes none: one line says where to resume.
TEST(Checkpoint, ModelFileLoadsAsPretrainedAndNotForResuming) {
  testing::TempDir dir;
  auto saved = filled_state(5, 1);
  save_model(dir.file("model_best.safetensors"), saved->replica, sample_info());
  auto loaded = filled_state(5, 2);
  const std::string momentum(reinterpret_cast<const char*>(loaded->momentum()),
                             loaded->replica.store().num_params() * sizeof(float));
  const std::string before = state_bytes(*loaded);

  const std::string error = error_of([&] {
    load_checkpoint(dir.file("model_best.safetensors"), loaded->replica, loaded->sgd.state(),
                    "tiny_resnet");
  });
  EXPECT_EQ(error, dir.file("model_best.safetensors") +
                       " holds a model's weights alone, no optimizer state: to go on with a run, "
                       "resume from its checkpoint-last.safetensors; to start from these weights, "
                       "pass them as --pretrained");
  EXPECT_EQ(state_bytes(*loaded), before);

  EXPECT_TRUE(load_pretrained(dir.file("model_best.safetensors"), loaded->replica, false).empty());
  std::string expected = state_bytes(*saved);
  expected.replace(expected.size() - momentum.size(), momentum.size(), momentum);  // untouched
  EXPECT_EQ(state_bytes(*loaded), expected);
}

TEST(Checkpoint, ResumeNeedsACheckpointWithMomentumAndMetadata) {
  testing::TempDir dir;
  auto source = filled_state(5, 1);
  save_checkpoint(dir.file("a.safetensors"), source->replica, source->sgd.state(), sample_info());
  Safetensors file = read_safetensors(dir.file("a.safetensors"));
  auto target = filled_state(5, 2);
  const std::string before = state_bytes(*target);

  Safetensors weights_only = file;
  weights_only.metadata.clear();
  write_safetensors(dir.file("b.safetensors"), weights_only);
  EXPECT_TRUE(contains(error_of([&] {
                         load_checkpoint(dir.file("b.safetensors"), target->replica,
                                         target->sgd.state(), "tiny_resnet");
                       }),
                       "not an xtrain checkpoint"));

  Safetensors no_momentum = file;
  no_momentum.tensors.erase("optimizer.momentum_buffer.fc.bias");
  write_safetensors(dir.file("c.safetensors"), no_momentum);
  EXPECT_TRUE(contains(error_of([&] {
                         load_checkpoint(dir.file("c.safetensors"), target->replica,
                                         target->sgd.state(), "tiny_resnet");
                       }),
                       "missing keys: optimizer.momentum_buffer.fc.bias"));

  Safetensors bad_epoch = file;
  bad_epoch.metadata["epoch"] = "3x";
  write_safetensors(dir.file("d.safetensors"), bad_epoch);
  EXPECT_TRUE(contains(error_of([&] {
                         load_checkpoint(dir.file("d.safetensors"), target->replica,
                                         target->sgd.state(), "tiny_resnet");
                       }),
                       "__metadata__ epoch is \"3x\", not a non-negative integer"));

  // Time to accuracy: absent in older files (nothing known), refused when it cannot be a run's.
  Safetensors older = file;
  older.metadata.erase("run_seconds");
  older.metadata.erase("top1_milestones");
  write_safetensors(dir.file("f.safetensors"), older);
  const CheckpointInfo older_info = load_checkpoint(dir.file("f.safetensors"), target->replica,
                                                    target->sgd.state(), "tiny_resnet");
  EXPECT_EQ(older_info.run_seconds, 0.0);
  EXPECT_TRUE(older_info.top1_milestones.empty());
  for (const auto& [milestones, problem] : std::vector<std::pair<std::string, std::string>>{
           {"[[1,40.5]]", "an entry is not [epoch, top1, seconds]"},
           {"[[1,140.5,3]]", "[1, 140.5, 3] is out of range"},
           {"[[2,40,10],[1,50,20]]", "the entries do not follow one another"},
           {"{}", "not a JSON list"}}) {
    Safetensors bad = file;
    bad.metadata["top1_milestones"] = milestones;
    write_safetensors(dir.file("g.safetensors"), bad);
    EXPECT_TRUE(contains(error_of([&] {
                           load_checkpoint(dir.file("g.safetensors"), target->replica,
                                           target->sgd.state(), "tiny_resnet");
                         }),
                         "top1_milestones: " + problem))
        << milestones;
  }
  // Those loads changed nothing but the older file's, which holds the same tensors.
  load_checkpoint(dir.file("a.safetensors"), target->replica, target->sgd.state(), "tiny_resnet");
  EXPECT_EQ(state_bytes(*target), state_bytes(*source));
  target = filled_state(5, 2);

  Safetensors future = file;
  future.metadata["format_version"] = "2";
  write_safetensors(dir.file("e.safetensors"), future);
  EXPECT_TRUE(contains(error_of([&] {
                         load_checkpoint(dir.file("e.safetensors"), target->replica,
                                         target->sgd.state(), "tiny_resnet");
                       }),
                       "checkpoint format version 2"));
  EXPECT_EQ(state_bytes(*target), before);
}

// --model_ema's average, as the trainer keeps it: arrays laid out as a replica's store (here
// another run state's store) and a count.
AveragedModelState average_in(RunState& r, int64_t* n_averaged) {
  ParamStore& s = r.replica.store();
  return {s.params(), s.buffers(), s.counters(), n_averaged};
}

TEST(Checkpoint, ModelAverageIsSavedUnderEmaKeysInTorchLayoutsAndRestored) {
  testing::TempDir dir;
  auto saved = filled_state(5, 1);
  auto average = filled_state(5, 3);
  int64_t n_averaged = 17;
  const AveragedModelState ema = average_in(*average, &n_averaged);
  save_checkpoint(dir.file("ema.safetensors"), saved->replica, saved->sgd.state(), sample_info(),
                  &ema);
  // The average's tensors are the model's names under "ema.", as the model's would be saved.
  save_checkpoint(dir.file("average.safetensors"), average->replica, average->sgd.state(),
                  sample_info());
  const Safetensors with = read_safetensors(dir.file("ema.safetensors"));
  const Safetensors as_model = read_safetensors(dir.file("average.safetensors"));
  for (const ParamEntry& e : saved->replica.store().entries()) {
    const SafeTensor& t = with.tensors.at("ema." + e.name);
    EXPECT_EQ(t.shape, as_model.tensors.at(e.name).shape) << e.name;
    EXPECT_EQ(t.data, as_model.tensors.at(e.name).data) << e.name;
  }
  EXPECT_EQ(with.tensors.at("ema.n_averaged").dtype, DType::kI64);

  auto loaded = filled_state(5, 2);
  auto loaded_average = filled_state(5, 4);
  int64_t loaded_n = 0;
  const AveragedModelState into = average_in(*loaded_average, &loaded_n);
  load_checkpoint(dir.file("ema.safetensors"), loaded->replica, loaded->sgd.state(), "tiny_resnet",
                  &into);
  EXPECT_EQ(state_bytes(*loaded), state_bytes(*saved));
  EXPECT_EQ(store_bytes(*loaded_average), store_bytes(*average));
  EXPECT_EQ(loaded_n, 17);

  // Without --model_ema the average is left unread; --pretrained never reads it.
  auto plain = filled_state(5, 5);
  load_checkpoint(dir.file("ema.safetensors"), plain->replica, plain->sgd.state(), "tiny_resnet");
  EXPECT_EQ(state_bytes(*plain), state_bytes(*saved));
  EXPECT_TRUE(load_pretrained(dir.file("ema.safetensors"), plain->replica, false).empty());
}

TEST(Checkpoint, ResumeWithAnAverageRefusesAFileWithoutOneNamingModelEma) {
  testing::TempDir dir;
  auto saved = filled_state(5, 1);
  save_checkpoint(dir.file("plain.safetensors"), saved->replica, saved->sgd.state(), sample_info());
  auto target = filled_state(5, 2);
  auto average = filled_state(5, 3);
  int64_t n_averaged = 0;
  const AveragedModelState ema = average_in(*average, &n_averaged);
  const std::string before = state_bytes(*target);
  const std::string message = error_of([&] {
    load_checkpoint(dir.file("plain.safetensors"), target->replica, target->sgd.state(),
                    "tiny_resnet", &ema);
  });
  EXPECT_TRUE(contains(message, "holds no model EMA")) << message;
  EXPECT_TRUE(contains(message, "--model_ema")) << message;
  EXPECT_EQ(state_bytes(*target), before);  // nothing changed
  EXPECT_EQ(n_averaged, 0);
}

}  // namespace
}  // namespace xtrain
