#include "lib/train/log_dir.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "lib/base/check.h"
#include "lib/io/safetensors.h"
#include "lib/optim/sgd.h"
#include "tests/graph/tiny_resnet.h"
#include "tests/io/io_test_util.h"
#include "tests/io/tf_records.h"

namespace xtrain {
namespace {

using Names = std::vector<std::string>;

// A killed run left temporary files of checkpoints and the summary; a new run, holding the
// folder's lock, removes those and nothing else: not another program's files. The pid in a name
// does not matter: no writer of these files outlives the lock, and one on another host of a
// shared file system would have a pid this host knows nothing of.
TEST(LogDir, RemovesTheTemporaryFilesOfKilledWritesAtStart) {
  testing::TempDir dir;
  const std::string dead = std::to_string(testing::dead_pid());
  const std::string live = std::to_string(::getppid());
  const Names stale = {"checkpoint-epoch-12.safetensors.tmp." + dead + ".3",
                       "checkpoint-last.safetensors.tmp." + dead + ".0",
                       "checkpoint-last.safetensors.tmp." + live + ".0",
                       "model_best.safetensors.tmp." + dead + ".1",
                       "summary.json.tmp." + dead + ".7"};
  const Names kept = {
      "checkpoint-last.safetensors",
      "checkpoint-last.safetensors.tmp." + dead,  // not our naming
      "checkpoint-epoch-x.safetensors.tmp." + dead + ".0",
      "metrics.jsonl.tmp." + dead + ".0",  // metrics.jsonl is appended, never written whole
      "notes.txt.tmp." + dead + ".0",
      "summary.json.tmp." + dead + ".0.bak",
      "summary.json.tmp." + dead + ".1"};  // a folder, not a file
  for (const std::string& name : stale) testing::write_bytes(dir.file(name), "x");
  for (const std::string& name : kept) testing::write_bytes(dir.file(name), "x");
  std::filesystem::remove(dir.file(kept.back()));
  std::filesystem::create_directory(dir.file(kept.back()));

  LogDir log_dir(dir.file(""), /*keep_checkpoints=*/1);

  Names expected = kept;
  expected.push_back("metrics.jsonl");
  expected.push_back("run.lock");
  std::sort(expected.begin(), expected.end());
  Names names = dir.names();
  const auto is_event_file = [](const std::string& name) {
    return name.rfind("events.out.tfevents.", 0) == 0;
  };
  EXPECT_EQ(std::count_if(names.begin(), names.end(), is_event_file), 1);  // this run's
  names.erase(std::remove_if(names.begin(), names.end(), is_event_file), names.end());
  EXPECT_EQ(names, expected);
}

// One run per logdir: a second one is refused before it writes anything (no event file, no
// metrics line, no temporary file of the first removed); once the first ends, it may start.
TEST(LogDir, ASecondRunIsRefusedBeforeItWritesAnything) {
  testing::TempDir dir;
  auto first = std::make_unique<LogDir>(dir.file(""), /*keep_checkpoints=*/1);
  first->append(EvalRecord{1, 75, 90, 0, 0});
  const std::string writing =
      "checkpoint-last.safetensors.tmp." + std::to_string(::getpid()) + ".0";
  testing::write_bytes(dir.file(writing), "x");
  const Names names = dir.names();
  const std::string metrics = testing::read_bytes(dir.file("metrics.jsonl"));

  try {
    LogDir second(dir.file(""), /*keep_checkpoints=*/1);
    ADD_FAILURE() << "two runs share " << dir.file("");
  } catch (const Error& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind("--logdir " + dir.file("") + " is in use by the run of PID " +
                                        std::to_string(::getpid()) + " on host ",
                                    0),
        0u)
        << e.what();
  }
  EXPECT_EQ(dir.names(), names);
  EXPECT_EQ(testing::read_bytes(dir.file("metrics.jsonl")), metrics);

  first.reset();
  LogDir second(dir.file(""), /*keep_checkpoints=*/1);
}

// model_best is the model alone, for PyTorch's strict load_state_dict; checkpoints keep the
// optimizer's momentum for resuming.
TEST(LogDir, ModelBestHoldsTheModelAloneAndCheckpointsTheMomentum) {
  testing::TempDir dir;
  Replica replica(testing::tiny_resnet(5));
  replica.store().initialize(1);
  SGD sgd(0.9f, false, {ParamTensor{0, replica.store().num_params(), 1e-4f}});
  CheckpointInfo info;
  info.model = "tiny_resnet";
  info.epoch = 1;
  {
    LogDir log_dir(dir.file(""), /*keep_checkpoints=*/1);
    log_dir.save_epoch(replica, sgd.state(), info, /*improved=*/true);
  }
  const auto momentum_keys = [&](const std::string& name) {
    int count = 0;
    for (const auto& [key, tensor] : read_safetensors(dir.file(name)).tensors) {
      count += key.rfind("optimizer.", 0) == 0;
    }
    return count;
  };
  EXPECT_EQ(momentum_keys("model_best.safetensors"), 0);
  int parameters = 0;
  for (const ParamEntry& e : replica.store().entries())
    parameters += e.spec.kind == ParamKind::kParameter;
  EXPECT_EQ(read_safetensors(dir.file("model_best.safetensors")).tensors.size(),
            replica.store().entries().size());
  EXPECT_EQ(momentum_keys("checkpoint-last.safetensors"), parameters);
  EXPECT_EQ(testing::read_bytes(dir.file("checkpoint-last.safetensors")),
            testing::read_bytes(dir.file("checkpoint-epoch-1.safetensors")));
}

// The event file holds core 0's training lines (one writer, as the XLA script writes only on the
// master ordinal) and every evaluation, each as one Event at its step.
TEST(LogDir, TensorBoardGetsCoreZerosLinesAndEveryEvaluation) {
  testing::TempDir dir;
  const TrainRecord core0{1, 20, 0, 2.5, 0.1, 300, 250, "12:00:00", 21, 0.125};
  TrainRecord core1 = core0;
  core1.core = 1;
  const EvalRecord eval{1, 75, 90, 0, 0};
  {
    LogDir log_dir(dir.file(""), /*keep_checkpoints=*/1);
    log_dir.append(core0);
    log_dir.append(core1);
    log_dir.append(eval);
  }
  std::string events;
  for (const std::string& name : dir.names()) {
    if (name.rfind("events.out.tfevents.", 0) == 0) events = testing::read_bytes(dir.file(name));
  }
  const std::vector<std::string> records = testing::read_tf_records(events);
  ASSERT_EQ(records.size(), 3u);
  // Equal but for the 9 bytes of wall_time that start each Event.
  EXPECT_EQ(records[0].substr(9), file_version_event(0).substr(9));
  EXPECT_EQ(records[1].substr(9), scalars_event(0, 21, tensorboard_scalars(core0)).substr(9));
  EXPECT_EQ(records[2].substr(9), scalars_event(0, 1, tensorboard_scalars(eval)).substr(9));
}

TEST(LogDir, TensorBoardScalarNames) {
  const std::vector<Scalar> train =
      tensorboard_scalars(TrainRecord{1, 20, 0, 2.5, 0.1, 300, 250, "12:00:00", 21, 0.125});
  const std::vector<Scalar> expected_train = {{"Loss/train", 2.5f},
                                              {"examples/sec", 300.0f},
                                              {"average_examples/sec", 250.0f},
                                              {"LearningRate", 0.1f},
                                              {"DataWait/share", 0.125f}};
  EXPECT_EQ(train, expected_train);
  const std::vector<Scalar> eval = tensorboard_scalars(EvalRecord{3, 75.5, 92.25, 0, 0});
  const std::vector<Scalar> expected_eval = {{"Accuracy/test", 75.5f},
                                             {"Accuracy/test_top5", 92.25f}};
  EXPECT_EQ(eval, expected_eval);
  EvalRecord ema{3, 76.5, 93.25, 0, 0};
  ema.ema = true;
  const std::vector<Scalar> expected_ema = {{"Accuracy/test_ema", 76.5f},
                                            {"Accuracy/test_top5_ema", 93.25f}};
  EXPECT_EQ(tensorboard_scalars(ema), expected_ema);
}

}  // namespace
}  // namespace xtrain
