// The data-parallel trainer: replicas that stay bitwise equal, N cores x batch B equal to one
// core x batch N*B, reruns that repeat exactly, a failure on one core that stops them all,
// resuming, diverged models that never score, and stops that land within one batch.
#include "lib/train/trainer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "lib/base/check.h"
#include "lib/graph/graph_builder.h"
#include "lib/io/safetensors.h"
#include "models/registry.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

constexpr int kClasses = 5;
constexpr int kSide = 8;
constexpr int64_t kImageFloats = int64_t{kSide} * kSide * 3;

// A fixed set of random images and labels; replica r of n serves images [r*B, (r+1)*B) of each
// global batch of n*B, as a DistributedSampler shard would. `fail_at_batch` >= 0 throws there.
class SliceSource : public BatchSource {
 public:
  SliceSource(int rank, int num_replicas, int batch_size, int64_t batches, int fail_at_batch = -1)
      : rank_(rank),
        num_replicas_(num_replicas),
        batch_size_(batch_size),
        batches_(batches),
        fail_at_batch_(fail_at_batch) {}

  int64_t batches_per_epoch() const override { return batches_; }
  void start_epoch(int epoch) override {
    epoch_ = epoch;
    next_ = 0;
  }
  int next(Elements images, int32_t* labels) override {
    if (next_ >= batches_) return 0;
    if (next_ == fail_at_batch_) throw std::runtime_error("injected data failure");
    for (int i = 0; i < batch_size_; ++i) {
      // The global index of this sample: the same data whatever the number of replicas.
      const int64_t sample =
          ((epoch_ * batches_ + next_) * num_replicas_ + rank_) * batch_size_ + i;
      const std::vector<float> x =
          testing::random_floats(kImageFloats, static_cast<uint32_t>(sample));
      write_floats(x.data(), kImageFloats, images.at(i * kImageFloats));
      labels[i] = static_cast<int32_t>(sample * 7 % kClasses);
    }
    ++next_;
    return batch_size_;
  }

 private:
  int rank_, num_replicas_, batch_size_;
  int64_t batches_;
  int fail_at_batch_;
  int epoch_ = 1;
  int64_t next_ = 0;
};

// Another source's batches; reading batch `at_batch` of an epoch sets `stop`, as a signal would
// arrive. Counts the batches it gave after that.
class StopAtBatch : public BatchSource {
 public:
  StopAtBatch(std::unique_ptr<BatchSource> source, int at_batch, std::atomic<bool>* stop,
              std::atomic<int>* given_after_stop)
      : source_(std::move(source)),
        at_batch_(at_batch),
        stop_(stop),
        given_after_stop_(given_after_stop) {}

  int64_t batches_per_epoch() const override { return source_->batches_per_epoch(); }
  void start_epoch(int epoch) override {
    batch_ = 0;
    source_->start_epoch(epoch);
  }
  int next(Elements images, int32_t* labels) override {
    if (batch_++ == at_batch_) *stop_ = true;
    const int n = source_->next(images, labels);
    if (*stop_ && n > 0) ++*given_after_stop_;
    return n;
  }

 private:
  std::unique_ptr<BatchSource> source_;
  int at_batch_;
  int batch_ = 0;
  std::atomic<bool>* stop_;
  std::atomic<int>* given_after_stop_;
};

TrainerOptions small_options(int num_cores, int batch_size) {
  TrainerOptions o;
  o.num_cores = num_cores;
  o.batch_size = batch_size;
  o.test_set_batch_size = batch_size;
  o.image_size = kSide;
  o.num_epochs = 1;
  o.log_steps = 1000;
  o.lr_schedule.type = "none";
  o.lr_schedule.lr = 0.05f;
  return o;
}

BatchSourceFactory slices(int batch_size, int64_t batches, int fail_rank = -1,
                          int fail_at_batch = -1) {
  return [=](int rank, int n) {
    return std::make_unique<SliceSource>(rank, n, batch_size, batches,
                                         rank == fail_rank ? fail_at_batch : -1);
  };
}

// slices(batch_size, batches) that set `stop` when a core reads batch `at_batch` of an epoch.
BatchSourceFactory stopping(int batch_size, int64_t batches, int at_batch, std::atomic<bool>* stop,
                            std::atomic<int>* given_after_stop) {
  return [=](int rank, int n) {
    return std::make_unique<StopAtBatch>(
        std::make_unique<SliceSource>(rank, n, batch_size, batches), at_batch, stop,
        given_after_stop);
  };
}

std::vector<float> params_of(Trainer& trainer, int rank) {
  ParamStore& store = trainer.replica(rank).store();
  return std::vector<float>(store.params(), store.params() + store.num_params());
}

TEST(Trainer, ReplicasStayBitwiseEqual) {
  for (int n : {2, 3, 4}) {
    SCOPED_TRACE(n);
    Trainer trainer(build_model("resnet20", kClasses), small_options(n, 2), slices(2, 4),
                    slices(2, 1));
    trainer.run();
    const std::vector<float> first = params_of(trainer, 0);
    EXPECT_NE(first, [&] {  // it trained: the weights moved from their initial values
      Replica fresh(build_model("resnet20", kClasses));
      fresh.store().initialize(42);
      return std::vector<float>(fresh.store().params(),
                                fresh.store().params() + fresh.store().num_params());
    }());
    for (int r = 1; r < n; ++r) {
      const std::vector<float> other = params_of(trainer, r);
      ASSERT_EQ(other.size(), first.size());
      EXPECT_EQ(std::memcmp(other.data(), first.data(), first.size() * sizeof(float)), 0)
          << "replica " << r << " differs from replica 0";
    }
  }
}

// Without BatchNorm the loss of a batch is the mean of per-sample losses, so the mean of N
// cores' gradients over B samples each is the gradient over all N*B: the same SGD step.
// Each core's BatchNorm running statistics follow its own batches; the job keeps their mean,
// so the replicas stay equal in every byte, statistics included, and a checkpoint holds them all.
TEST(Trainer, ReplicasAgreeOnBatchNormStatistics) {
  for (int n : {2, 3}) {
    SCOPED_TRACE(n);
    Trainer trainer(build_model("resnet20", kClasses), small_options(n, 2), slices(2, 3),
                    slices(2, 1));
    trainer.run();
    ParamStore& first = trainer.replica(0).store();
    const std::vector<float> statistics(first.buffers(), first.buffers() + first.num_buffers());
    for (int rank = 1; rank < n; ++rank) {
      ParamStore& other = trainer.replica(rank).store();
      EXPECT_EQ(std::vector<float>(other.buffers(), other.buffers() + other.num_buffers()),
                statistics)
          << "replica " << rank;
    }
  }
}

std::shared_ptr<const Graph> model_without_batchnorm() {
  GraphBuilder g(3);
  Value x = g.relu(g.conv2d("conv1", g.input(), 6, 3, 1, 1, /*bias=*/true));
  x = g.relu(g.conv2d("conv2", x, 8, 3, 2, 1, /*bias=*/true));
  x = g.global_avg_pool_flatten("avgpool", x);
  g.linear("fc", x, kClasses);
  return g.finish();
}

TEST(Trainer, DataParallelEqualsOneLargeBatch) {
  constexpr int kBatch = 3, kSteps = 3;
  Trainer large(model_without_batchnorm(), small_options(1, 4 * kBatch), slices(4 * kBatch, kSteps),
                slices(4 * kBatch, 1));
  large.run();
  Trainer parallel(model_without_batchnorm(), small_options(4, kBatch), slices(kBatch, kSteps),
                   slices(kBatch, 1));
  parallel.run();
  testing::expect_close(params_of(parallel, 0), params_of(large, 0), 1e-4f, 1e-6f, "params");
}

// A residual branch under StochasticDepth(0.5): its masks are drawn per sample of the step's
// whole batch under a key every core shares, so 4 cores x batch B still take the steps of one
// core x batch 4B (with masks drawn per core, the cores would drop other samples).
TEST(Trainer, DataParallelWithStochasticDepthEqualsOneLargeBatch) {
  const auto model = [] {
    GraphBuilder g(3);
    Value x = g.relu(g.conv2d("conv1", g.input(), 6, 3, 1, 1, /*bias=*/true));
    Value branch = g.relu(g.conv2d("block.conv", x, 6, 3, 1, 1, /*bias=*/true));
    branch = g.stochastic_depth("block.stochastic_depth", branch, 0.5);
    x = g.global_avg_pool_flatten("avgpool", g.add(branch, x));
    g.linear("fc", x, kClasses);
    return g.finish();
  };
  constexpr int kBatch = 3, kSteps = 3;
  Trainer large(model(), small_options(1, 4 * kBatch), slices(4 * kBatch, kSteps),
                slices(4 * kBatch, 1));
  large.run();
  Trainer parallel(model(), small_options(4, kBatch), slices(kBatch, kSteps), slices(kBatch, 1));
  parallel.run();
  testing::expect_close(params_of(parallel, 0), params_of(large, 0), 1e-4f, 1e-6f, "params");
}

std::vector<float> statistics_of(Trainer& trainer, int rank) {
  ParamStore& store = trainer.replica(rank).store();
  return std::vector<float>(store.buffers(), store.buffers() + store.num_buffers());
}

float largest_difference(const std::vector<float>& a, const std::vector<float>& b) {
  float largest = 0.0f;
  for (size_t i = 0; i < a.size(); ++i) largest = std::max(largest, std::abs(a[i] - b[i]));
  return largest;
}

// --sync_bn: BatchNorm's statistics come from the whole step's batch, so N cores x batch B take
// the steps of one core x batch N*B, BatchNorm and all (running statistics included); without it
// each core normalizes its own B images, and the weights go elsewhere. Two steps: layer3's maps
// are 2x2 here, so a pre-activation that rounds to the other side of zero (as builds of other
// optimization levels do) changes a gradient outright, and the more steps, the likelier one is.
TEST(Trainer, SyncBatchNormEqualsOneLargeBatch) {
  constexpr int kBatch = 3, kSteps = 2;
  Trainer large(build_model("resnet20", kClasses), small_options(1, 4 * kBatch),
                slices(4 * kBatch, kSteps), slices(4 * kBatch, 1));
  large.run();
  TrainerOptions o = small_options(4, kBatch);
  o.sync_bn = true;
  Trainer synced(build_model("resnet20", kClasses), o, slices(kBatch, kSteps), slices(kBatch, 1));
  synced.run();
  testing::expect_close(params_of(synced, 0), params_of(large, 0), 1e-4f, 1e-6f, "params");
  testing::expect_close(statistics_of(synced, 0), statistics_of(large, 0), 1e-4f, 1e-6f,
                        "BatchNorm statistics");
  for (int rank = 1; rank < 4; ++rank) {
    EXPECT_EQ(params_of(synced, rank), params_of(synced, 0)) << "replica " << rank;
  }
  Trainer separate(build_model("resnet20", kClasses), small_options(4, kBatch),
                   slices(kBatch, kSteps), slices(kBatch, 1));
  separate.run();
  EXPECT_GT(largest_difference(params_of(separate, 0), params_of(large, 0)),
            100 * largest_difference(params_of(synced, 0), params_of(large, 0)));
}

// Full batches of `batch_size` random side x side images, `batches` of them an epoch.
class SquareImages : public BatchSource {
 public:
  SquareImages(int side, int batch_size, int64_t batches)
      : side_(side), batch_size_(batch_size), batches_(batches) {}

  int64_t batches_per_epoch() const override { return batches_; }
  void start_epoch(int) override { next_ = 0; }
  int next(Elements images, int32_t* labels) override {
    if (next_ >= batches_) return 0;
    const int64_t floats = int64_t{batch_size_} * side_ * side_ * 3;
    const std::vector<float> x = testing::random_floats(floats, static_cast<uint32_t>(next_));
    write_floats(x.data(), floats, images);
    for (int i = 0; i < batch_size_; ++i) labels[i] = static_cast<int32_t>((next_ + i) % kClasses);
    ++next_;
    return batch_size_;
  }

 private:
  int side_, batch_size_;
  int64_t batches_;
  int64_t next_ = 0;
};

BatchSourceFactory square_images(int side, int batch_size, int64_t batches) {
  return [=](int, int) { return std::make_unique<SquareImages>(side, batch_size, batches); };
}

// torchvision's recipes test at another size than they train (train 176, test 224): the trainer
// compiles its evaluation plans for the test images' side, and its batch buffer holds the larger
// batch of either kind, here the test batch of 3 images of 12 x 12 (more floats than training's
// 2 of 8 x 8).
TEST(Trainer, TestsAtItsOwnImageSize) {
  TrainerOptions o = small_options(2, 2);
  o.test_set_batch_size = 3;
  o.test_image_size = 12;
  Trainer trainer(build_model("resnet20", kClasses), o, square_images(kSide, 2, 2),
                  square_images(12, 3, 2));
  const TrainResult result = trainer.run();
  EXPECT_EQ(result.final_samples, 2 * 2 * 3);
  for (int rank = 0; rank < 2; ++rank) {
    Replica& replica = trainer.replica(rank);
    const int compiled = replica.compiled_plans();
    replica.plan_for(Shape{3, 12, 12, 3}, PlanMode::kEval);  // compiled by the test pass
    EXPECT_EQ(replica.compiled_plans(), compiled) << "rank " << rank;
    replica.plan_for(Shape{3, kSide, kSide, 3}, PlanMode::kEval);  // never was
    EXPECT_EQ(replica.compiled_plans(), compiled + 1) << "rank " << rank;
  }
}

// A bfloat16 trainer's sources write its batches in bfloat16 (half the buffer): the same steps
// as float32's but for the rounding of the products' operands.
TEST(Trainer, BFloat16TrainingTakesFloat32sStepsRounded) {
  constexpr int kBatch = 4, kSteps = 3;
  auto train = [&](Precision precision) {
    TrainerOptions o = small_options(2, kBatch);
    o.precision = precision;
    Trainer trainer(model_without_batchnorm(), o, slices(kBatch, kSteps), slices(kBatch, 1));
    trainer.run();
    return params_of(trainer, 0);
  };
  const std::vector<float> f32 = train(Precision::kFloat32), bf16 = train(Precision::kBFloat16);
  EXPECT_NE(f32, bf16);
  testing::expect_close(bf16, f32, 1e-2f, 1e-3f, "params");
}

TEST(Trainer, RerunsAreBitwiseIdentical) {
  auto train_once = [] {
    TrainerOptions o = small_options(3, 2);
    o.num_epochs = 2;
    Trainer trainer(build_model("resnet20", kClasses), o, slices(2, 3), slices(2, 2));
    const TrainResult result = trainer.run();
    return std::make_pair(result.max_top1, params_of(trainer, 0));
  };
  EXPECT_EQ(train_once(), train_once());
}

std::shared_ptr<const Graph> model_with_dropout(float p) {
  GraphBuilder g(3);
  Value x = g.relu(g.conv2d("conv1", g.input(), 16, 3, 1, 1, /*bias=*/true));
  x = g.dropout("drop", g.global_avg_pool_flatten("avgpool", x), p);
  g.linear("fc", x, kClasses);
  return g.finish();
}

// Dropout's masks come from (seed, step, core): reruns are bitwise equal, the cores still take
// one step together, and the masks do change the step (p = 0.5 against p = 0).
TEST(Trainer, DropoutRerunsAreBitwiseIdenticalAndCoresAgree) {
  const auto train_once = [](float p) {
    TrainerOptions o = small_options(2, 2);
    o.num_epochs = 2;
    Trainer trainer(model_with_dropout(p), o, slices(2, 3), slices(2, 1));
    trainer.run();
    EXPECT_EQ(params_of(trainer, 0), params_of(trainer, 1));
    return params_of(trainer, 0);
  };
  const std::vector<float> first = train_once(0.5f);
  EXPECT_EQ(first, train_once(0.5f));
  EXPECT_NE(first, train_once(0.0f));
}

TEST(Trainer, ADataFailureOnOneCoreStopsEveryCore) {
  Trainer trainer(build_model("resnet20", kClasses), small_options(4, 2),
                  slices(2, 20, /*fail_rank=*/2, /*fail_at_batch=*/5), slices(2, 1));
  try {
    trainer.run();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "xla:2: injected data failure");
  }
}

TEST(Trainer, StopRequestEndsEveryCoreAfterTheSameStep) {
  std::atomic<bool> stop{false};
  std::atomic<int> given_after_stop{0};
  TrainerOptions o = small_options(2, 2);
  o.stop_requested = &stop;
  const BatchSourceFactory stop_at_2 = [&](int rank, int n) {  // core 0 only: as a signal
    return std::make_unique<StopAtBatch>(std::make_unique<SliceSource>(rank, n, 2, 50),
                                         rank == 0 ? 2 : -1, &stop, &given_after_stop);
  };
  Trainer trainer(build_model("resnet20", kClasses), o, stop_at_2, slices(2, 1));
  const TrainResult result = trainer.run();
  EXPECT_TRUE(result.interrupted);
  EXPECT_EQ(params_of(trainer, 0), params_of(trainer, 1));
}

TEST(Trainer, CoresMustTakeTheSameNumberOfSteps) {
  const BatchSourceFactory uneven = [](int rank, int n) {
    return std::make_unique<SliceSource>(rank, n, 2, rank == 0 ? 3 : 4);
  };
  EXPECT_THROW(
      Trainer(build_model("resnet20", kClasses), small_options(2, 2), uneven, slices(2, 1)), Error);
}

}  // namespace
}  // namespace xtrain

namespace xtrain {
namespace {

std::string temp_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "xtrain_" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

// The training lines --logdir recorded: "epoch step core loss" each.
std::vector<std::string> train_records(const std::string& logdir) {
  std::ifstream in(logdir + "/metrics.jsonl");
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j["kind"] != "train") continue;
    out.push_back(fmt::format("{} {} {} {:.9g}", j["epoch"].get<int>(), j["step"].get<int>(),
                              j["core"].get<int>(), j["loss"].get<double>()));
  }
  std::sort(out.begin(), out.end());  // cores append in whatever order they get there
  return out;
}

// Caffe's test of resuming: 2k steps straight equal k steps, a resume and k more, in every loss
// and every byte of the weights and momentum.
TEST(Trainer, ResumingIsExact) {
  TrainerOptions o = small_options(2, 2);
  o.num_epochs = 2;
  o.log_steps = 1;
  o.model = "resnet20";
  o.lr_schedule.type = "WarmupAndExponentialDecayScheduler";
  o.lr_schedule.divide_every_n_epochs = 1;  // the LR changes at the epoch boundary
  o.lr_schedule.num_warmup_epochs = 0.5f;
  o.logdir = temp_dir("straight");
  Trainer straight(build_model("resnet20", kClasses), o, slices(2, 3), slices(2, 1));
  const TrainResult straight_result = straight.run();

  TrainerOptions first_half = o;
  first_half.num_epochs = 1;
  first_half.logdir = temp_dir("halves");
  Trainer(build_model("resnet20", kClasses), first_half, slices(2, 3), slices(2, 1)).run();
  TrainerOptions second_half = o;
  second_half.logdir = first_half.logdir;
  Trainer resumed(build_model("resnet20", kClasses), second_half, slices(2, 3), slices(2, 1));
  resumed.resume(LogDir::latest_checkpoint(first_half.logdir));
  const TrainResult resumed_result = resumed.run();

  EXPECT_EQ(train_records(first_half.logdir), train_records(o.logdir));
  EXPECT_EQ(train_records(o.logdir).size(), 2u * 3u * 2u);  // epochs x steps x cores
  EXPECT_EQ(resumed_result.max_top1, straight_result.max_top1);
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_EQ(params_of(resumed, rank), params_of(straight, rank)) << "replica " << rank;
    const size_t n = resumed.replica(rank).store().num_params();
    const float* a = resumed.optimizer(rank).state()[0].values;
    const float* b = straight.optimizer(rank).state()[0].values;
    EXPECT_EQ(std::vector<float>(a, a + n), std::vector<float>(b, b + n)) << "momentum " << rank;
  }
  for (const char* file :
       {"checkpoint-last.safetensors", "model_best.safetensors", "checkpoint-epoch-1.safetensors",
        "checkpoint-epoch-2.safetensors", "summary.json"}) {
    EXPECT_TRUE(std::filesystem::exists(o.logdir + "/" + file)) << file;
  }
}

// Time to accuracy counts the run's wall time over every resume: a resumed run keeps the first
// one's milestones as they were and goes on from its clock; the evaluations' records and
// summary.json say when each target was first reached, or null.
TEST(Trainer, TimeToAccuracyCountsEveryResume) {
  TrainerOptions o = small_options(2, 2);
  o.model = "resnet20";
  o.logdir = temp_dir("time_to_accuracy");
  const TrainResult first_result =
      Trainer(build_model("resnet20", kClasses), o, slices(2, 3), slices(2, 1)).run();
  ASSERT_EQ(first_result.top1_milestones.size(), 1u);  // the first evaluation sets the best
  const Top1Milestone reached = first_result.top1_milestones[0];
  EXPECT_EQ(reached.epoch, 1);
  EXPECT_EQ(reached.top1, first_result.max_top1);
  EXPECT_GT(reached.run_seconds, 0.0);

  TrainerOptions more = o;
  more.num_epochs = 3;
  more.top1_targets = {reached.top1, 100.0};
  Trainer resumed(build_model("resnet20", kClasses), more, slices(2, 3), slices(2, 1));
  resumed.resume(LogDir::latest_checkpoint(o.logdir));
  const TrainResult result = resumed.run();
  ASSERT_GE(result.top1_milestones.size(), 1u);
  EXPECT_EQ(result.top1_milestones[0].epoch, reached.epoch);
  EXPECT_EQ(result.top1_milestones[0].run_seconds, reached.run_seconds);

  std::vector<double> eval_seconds;
  std::ifstream records(o.logdir + "/metrics.jsonl");
  for (std::string line; std::getline(records, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j["kind"] == "eval") eval_seconds.push_back(j["run_seconds"].get<double>());
  }
  ASSERT_EQ(eval_seconds.size(), 3u);
  EXPECT_EQ(eval_seconds[0], reached.run_seconds);
  EXPECT_TRUE(std::is_sorted(eval_seconds.begin(), eval_seconds.end()));

  std::ifstream summary_file(o.logdir + "/summary.json");
  const nlohmann::json summary = nlohmann::json::parse(summary_file);
  EXPECT_GE(summary["run_seconds"].get<double>(), eval_seconds.back());
  ASSERT_EQ(summary["time_to_top1"].size(), 2u);
  EXPECT_EQ(summary["time_to_top1"][0]["epoch"], 1);
  EXPECT_EQ(summary["time_to_top1"][0]["run_seconds"].get<double>(), reached.run_seconds);
  const bool perfect = result.max_top1 == 100.0;
  EXPECT_EQ(summary["time_to_top1"][1]["epoch"].is_null(), !perfect);
}

// Ctrl-C in the middle of an epoch saves checkpoint-last; resuming goes on with the next batch
// and ends where an uninterrupted run ends, with SGD's momentum or LAMB's moments, whose bias
// corrections count the steps.
TEST(Trainer, ResumingMidEpochIsExact) {
  for (const std::string opt : {"sgd", "lamb"}) {
    SCOPED_TRACE(opt);
    TrainerOptions o = small_options(2, 2);
    o.num_epochs = 2;
    o.log_steps = 1;
    o.model = "resnet20";
    o.optimizer.name = opt;
    o.logdir = temp_dir("straight_mid_" + opt);
    Trainer straight(build_model("resnet20", kClasses), o, slices(2, 3), slices(2, 1));
    straight.run();

    std::atomic<bool> stop{false};
    std::atomic<int> given_after_stop{0};
    // after the first step
    const BatchSourceFactory stop_at_1 = stopping(2, 3, 1, &stop, &given_after_stop);
    TrainerOptions interrupted = o;
    interrupted.logdir = temp_dir("interrupted_" + opt);
    interrupted.stop_requested = &stop;
    EXPECT_TRUE(Trainer(build_model("resnet20", kClasses), interrupted, stop_at_1, slices(2, 1))
                    .run()
                    .interrupted);
    EXPECT_EQ(train_records(interrupted.logdir).size(), 2u);  // one step on each core
    TrainerOptions rest = o;
    rest.logdir = interrupted.logdir;
    Trainer resumed(build_model("resnet20", kClasses), rest, slices(2, 3), slices(2, 1));
    resumed.resume(LogDir::latest_checkpoint(rest.logdir));
    resumed.run();

    EXPECT_EQ(train_records(rest.logdir), train_records(o.logdir));
    for (int rank = 0; rank < 2; ++rank) {
      EXPECT_EQ(params_of(resumed, rank), params_of(straight, rank)) << "replica " << rank;
    }
  }
}

// mixup and CutMix draw from (seed, step, core): a rerun mixes alike, and it trains on other
// batches than an unmixed run.
TEST(Trainer, MixedBatchesRepeatOnRerun) {
  TrainerOptions o = small_options(2, 2);
  o.log_steps = 1;
  o.model = "resnet20";
  o.batch_mix = BatchMixOptions{0.2f, 1.0f};
  std::vector<std::vector<std::string>> records;
  for (const char* name : {"mixed_a", "mixed_b"}) {
    o.logdir = temp_dir(name);
    Trainer(build_model("resnet20", kClasses), o, slices(2, 3), slices(2, 1)).run();
    records.push_back(train_records(o.logdir));
  }
  EXPECT_EQ(records[0], records[1]);
  o.batch_mix = BatchMixOptions{};
  o.logdir = temp_dir("unmixed");
  Trainer(build_model("resnet20", kClasses), o, slices(2, 3), slices(2, 1)).run();
  EXPECT_NE(train_records(o.logdir), records[0]);
}

// A checkpoint holds one optimizer's state: resuming it with another is refused, naming what the
// file lacks, before anything changes.
TEST(Trainer, ResumeRefusesAnotherOptimizersState) {
  TrainerOptions o = small_options(1, 2);
  o.model = "resnet20";
  o.num_epochs = 1;
  o.logdir = temp_dir("sgd_state");
  Trainer(build_model("resnet20", kClasses), o, slices(1, 2), slices(1, 1)).run();
  o.optimizer.name = "adamw";
  Trainer adamw(build_model("resnet20", kClasses), o, slices(1, 2), slices(1, 1));
  const std::string message =
      testing::error_of([&] { adamw.resume(LogDir::latest_checkpoint(o.logdir)); });
  EXPECT_NE(message.find("missing keys: optimizer.exp_avg."), std::string::npos) << message;
  EXPECT_NE(message.find("unexpected keys: optimizer.momentum_buffer."), std::string::npos)
      << message;
}

// core 0's training records as "epoch step": rate.
std::map<std::string, float> rates_of(const std::string& logdir) {
  std::ifstream in(logdir + "/metrics.jsonl");
  std::map<std::string, float> out;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j["kind"] != "train" || j["core"] != 0) continue;
    out[fmt::format("{} {}", j["epoch"].get<int>(), j["step"].get<int>())] = j["lr"].get<float>();
  }
  return out;
}

// torchvision's schedules step after each epoch the run trains (--num_steps of the data's
// batches here), and a run resumed mid-epoch uses the rate an uninterrupted one does.
TEST(Trainer, TorchvisionScheduleStepsAfterEachTrainedEpochAndResumesMidEpoch) {
  TrainerOptions o = small_options(2, 2);
  o.num_epochs = 3;
  o.num_steps = 2;  // of 3 batches
  o.log_steps = 1;
  o.model = "resnet20";
  o.lr_schedule.lr = 0.1f;
  o.lr_schedule.torchvision.lr_scheduler = "exponentiallr";
  o.lr_schedule.torchvision.lr_gamma = 0.5;
  o.lr_schedule.torchvision.lr_warmup_epochs = 1;  // constant: lr x 0.2
  o.lr_schedule.torchvision.lr_warmup_decay = 0.2;
  o.logdir = temp_dir("torchvision_straight");
  Trainer(build_model("resnet20", kClasses), o, slices(2, 3), slices(2, 1)).run();
  const std::map<std::string, float> rates = rates_of(o.logdir);
  const std::map<std::string, float> expected = {{"1 0", 0.02f}, {"1 1", 0.02f}, {"2 0", 0.1f},
                                                 {"2 1", 0.1f},  {"3 0", 0.05f}, {"3 1", 0.05f}};
  ASSERT_EQ(rates.size(), expected.size());
  for (const auto& [step, rate] : expected) EXPECT_FLOAT_EQ(rates.at(step), rate) << step;

  // One epoch, then a stop after the first step of epoch 2, then the rest.
  TrainerOptions first = o;
  first.num_epochs = 1;
  first.logdir = temp_dir("torchvision_interrupted");
  Trainer(build_model("resnet20", kClasses), first, slices(2, 3), slices(2, 1)).run();
  std::atomic<bool> stop{false};
  std::atomic<int> given_after_stop{0};
  TrainerOptions interrupted = o;
  interrupted.logdir = first.logdir;
  interrupted.stop_requested = &stop;
  Trainer second(build_model("resnet20", kClasses), interrupted,
                 stopping(2, 3, 1, &stop, &given_after_stop), slices(2, 1));
  second.resume(LogDir::latest_checkpoint(first.logdir));
  EXPECT_TRUE(second.run().interrupted);
  EXPECT_EQ(rates_of(first.logdir).size(), 3u);  // epoch 1, and epoch 2's first step
  TrainerOptions rest = o;
  rest.logdir = first.logdir;
  Trainer resumed(build_model("resnet20", kClasses), rest, slices(2, 3), slices(2, 1));
  resumed.resume(LogDir::latest_checkpoint(rest.logdir));
  resumed.run();
  EXPECT_EQ(rates_of(rest.logdir), rates);
  EXPECT_EQ(train_records(rest.logdir), train_records(o.logdir));
}

TEST(Trainer, ResumeRefusesAnotherModel) {
  TrainerOptions o = small_options(1, 2);
  o.model = "resnet20";
  o.logdir = temp_dir("other_model");
  Trainer(build_model("resnet20", kClasses), o, slices(2, 1), slices(2, 1)).run();
  o.model = "resnet32";
  Trainer other(build_model("resnet32", kClasses), o, slices(2, 1), slices(2, 1));
  EXPECT_THROW(other.resume(LogDir::latest_checkpoint(o.logdir)), Error);
}

}  // namespace
}  // namespace xtrain

// A diverged model never scores: non-finite outputs are counted wrong and reported, and neither
// they nor non-finite weights ever become model_best.
namespace xtrain {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Another core's test source that, when test epoch `epoch` starts, turns fc.bias NaN in its
// core's replica: as a too-large step leaves a model whose last training loss was still finite.
// (NaN images would not do: ReLU maps NaN to 0.)
class PoisonFcBiasAtEpoch : public BatchSource {
 public:
  PoisonFcBiasAtEpoch(std::unique_ptr<BatchSource> source, int epoch, Trainer* const& trainer,
                      int rank)
      : source_(std::move(source)), epoch_(epoch), trainer_(trainer), rank_(rank) {}

  int64_t batches_per_epoch() const override { return source_->batches_per_epoch(); }
  void start_epoch(int epoch) override {
    if (epoch == epoch_) {  // on this core's own thread, so it touches only its own replica
      ParamStore& store = trainer_->replica(rank_).store();
      store.data(*store.find("fc.bias"))[0] = kNaN;
    }
    source_->start_epoch(epoch);
  }
  int next(Elements images, int32_t* labels) override { return source_->next(images, labels); }

 private:
  std::unique_ptr<BatchSource> source_;
  int epoch_;
  Trainer* const& trainer_;
  int rank_;
};

// The evaluation records of `kind` in logdir's metrics.jsonl, without their wall times.
std::vector<nlohmann::json> eval_records(const std::string& logdir,
                                         const std::string& kind = "eval") {
  std::ifstream in(logdir + "/metrics.jsonl");
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    j.erase("run_seconds");  // a wall time: the one field two runs never share
    if (j["kind"] == kind) out.push_back(std::move(j));
  }
  return out;
}

void poison_weights(Trainer& trainer) {
  for (int rank = 0; rank < trainer.num_cores(); ++rank) {
    ParamStore& store = trainer.replica(rank).store();
    std::fill_n(store.params(), store.num_params(), kNaN);
  }
}

TEST(Trainer, EvaluatingNaNWeightsScoresNothingAndCountsEverySample) {
  // 2 cores x 3 batches x 2 images
  Trainer trainer(build_model("resnet20", kClasses), small_options(2, 2), slices(2, 1),
                  slices(2, 3));
  poison_weights(trainer);
  const TrainResult result = trainer.evaluate();
  EXPECT_EQ(result.final_top1, 0.0);
  EXPECT_EQ(result.final_top5, 0.0);
  EXPECT_EQ(result.max_top1, 0.0);
  EXPECT_EQ(result.final_samples, 12);
  EXPECT_EQ(result.final_nonfinite, 12);
}

// The same test samples whatever the epoch: an evaluation of epoch 0 (--evaluate) sees what the
// test pass of epoch 1 saw.
class SameSamplesEveryEpoch : public SliceSource {
 public:
  using SliceSource::SliceSource;
  void start_epoch(int) override { SliceSource::start_epoch(1); }
};

BatchSourceFactory same_samples(int batch_size, int64_t batches) {
  return [=](int rank, int n) {
    return std::make_unique<SameSamplesEveryEpoch>(rank, n, batch_size, batches);
  };
}

// --evaluate of a checkpoint reproduces the accuracy logged when it was saved, on any number of
// cores: the checkpoint holds the statistics every core evaluated with.
TEST(Trainer, EvaluatingACheckpointReproducesItsLoggedAccuracy) {
  TrainerOptions o = small_options(2, 2);
  o.model = "resnet20";
  o.logdir = temp_dir("evaluate_checkpoint");
  Trainer(build_model("resnet20", kClasses), o, slices(2, 4), same_samples(2, 8)).run();
  const nlohmann::json logged = eval_records(o.logdir).at(0);
  for (int cores : {1, 2, 4}) {
    SCOPED_TRACE(cores);
    Trainer evaluator(build_model("resnet20", kClasses), small_options(cores, 2), slices(2, 1),
                      same_samples(2, 16 / cores));
    evaluator.load_pretrained(o.logdir + "/checkpoint-epoch-1.safetensors");
    const TrainResult result = evaluator.evaluate();
    EXPECT_EQ(result.final_samples, 32);
    EXPECT_EQ(result.final_top1, logged["top1"].get<double>());
    EXPECT_EQ(result.final_top5, logged["top5"].get<double>());
  }
}

// An infinite running_var (as a too-large learning rate leaves) scales its channels to 0: the
// outputs stay finite, but the model has diverged and scores nothing, as NaN outputs would.
TEST(Trainer, InfiniteStatisticsWithFiniteOutputsScoreNothing) {
  Trainer trainer(build_model("resnet20", kClasses), small_options(2, 2), slices(2, 1),
                  slices(2, 3));
  for (int rank = 0; rank < trainer.num_cores(); ++rank) {
    ParamStore& store = trainer.replica(rank).store();
    std::fill_n(store.data(*store.find("bn1.running_var")), 16,
                std::numeric_limits<float>::infinity());
  }
  const TrainResult result = trainer.evaluate();
  EXPECT_TRUE(result.final_weights_nonfinite);
  EXPECT_EQ(result.final_nonfinite, 12);
  EXPECT_EQ(result.final_samples, 12);
  EXPECT_EQ(result.final_top1, 0.0);
  EXPECT_EQ(result.max_top1, 0.0);
}

TEST(Trainer, NonFiniteOutputsNeverReplaceModelBest) {
  TrainerOptions o = small_options(2, 2);
  o.num_epochs = 2;
  o.model = "resnet20";
  o.logdir = temp_dir("nonfinite_outputs");
  Trainer* trainer = nullptr;
  const BatchSourceFactory nan_in_epoch_2 = [&](int rank, int n) {
    return std::make_unique<PoisonFcBiasAtEpoch>(std::make_unique<SliceSource>(rank, n, 2, 2), 2,
                                                 trainer, rank);
  };
  Trainer run(build_model("resnet20", kClasses), o, slices(2, 3), nan_in_epoch_2);
  trainer = &run;
  const TrainResult result = run.run();

  const std::vector<nlohmann::json> evals = eval_records(o.logdir);
  ASSERT_EQ(evals.size(), 2u);
  EXPECT_EQ(evals[0]["nonfinite"], 0);
  EXPECT_EQ(evals[1]["nonfinite"], 8);  // 2 cores x 2 batches x 2 images
  EXPECT_EQ(evals[1]["top1"], 0.0);
  EXPECT_EQ(result.max_top1, evals[0]["top1"].get<double>());
  EXPECT_EQ(result.final_nonfinite, 8);
  // model_best is epoch 1's model: each of its tensors as in that checkpoint.
  const Safetensors best = read_safetensors(o.logdir + "/model_best.safetensors");
  const Safetensors epoch_1 = read_safetensors(o.logdir + "/checkpoint-epoch-1.safetensors");
  EXPECT_FALSE(best.tensors.empty());
  for (const auto& [name, tensor] : best.tensors) {
    EXPECT_EQ(tensor.data, epoch_1.tensors.at(name).data) << name;
  }
}

TEST(Trainer, NonFiniteWeightsNeverBecomeModelBest) {
  // Without BatchNorm, and with ReLU mapping a NaN to 0, a NaN weight of conv1 leaves the
  // outputs finite: only a look at the weights tells.
  TrainerOptions o = small_options(1, 2);
  o.model = "no_batchnorm";
  o.logdir = temp_dir("nonfinite_weights");
  Trainer trainer(model_without_batchnorm(), o, slices(2, 2), slices(2, 2));
  ParamStore& store = trainer.replica(0).store();
  store.data(*store.find("conv1.weight"))[0] = kNaN;
  const TrainResult result = trainer.run();
  EXPECT_EQ(result.max_top1, 0.0);
  EXPECT_FALSE(std::filesystem::exists(o.logdir + "/model_best.safetensors"));
  EXPECT_TRUE(std::filesystem::exists(o.logdir + "/checkpoint-epoch-1.safetensors"));
}

}  // namespace
}  // namespace xtrain

// Stops: within one batch of the test pass too, and at once for a core waiting for data.
namespace xtrain {
namespace {

// A source whose data never comes (a stuck read): next() waits until close(). A hang guard
// throws after 20 s, long past any stop.
class NeverReady : public BatchSource {
 public:
  int64_t batches_per_epoch() const override { return 5; }
  void start_epoch(int) override {}
  int next(Elements, int32_t*) override {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!closed_changed_.wait_for(lock, std::chrono::seconds(20), [this] { return closed_; })) {
      throw std::runtime_error("next() was never woken by close()");
    }
    return 0;
  }
  void close() override {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    closed_changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable closed_changed_;
  bool closed_ = false;
};

TEST(Trainer, AStopEndsTheTestPassWithinOneBatch) {
  std::atomic<bool> stop{false};
  std::atomic<int> given_after_stop{0};
  TrainerOptions o = small_options(2, 2);
  o.model = "resnet20";
  o.stop_requested = &stop;
  o.logdir = temp_dir("stop_in_test");
  const BatchSourceFactory stop_at_3 = stopping(2, 50, /*at_batch=*/3, &stop, &given_after_stop);
  const TrainResult result =
      Trainer(build_model("resnet20", kClasses), o, slices(2, 2), stop_at_3).run();
  EXPECT_TRUE(result.interrupted);
  EXPECT_LE(given_after_stop, 2);  // at most the batch each core was reading
  // No evaluation: no accuracy logged, no model_best; checkpoint-last holds the trained epoch.
  EXPECT_TRUE(eval_records(o.logdir).empty());
  EXPECT_FALSE(std::filesystem::exists(o.logdir + "/model_best.safetensors"));
  EXPECT_TRUE(std::filesystem::exists(o.logdir + "/checkpoint-last.safetensors"));
}

// A requeued run stopped in its last test pass evaluates that epoch on resume, as the run never
// stopped would have: the same accuracy, an eval record, model_best.
TEST(Trainer, AStopInTheTestPassIsEvaluatedOnResume) {
  TrainerOptions o = small_options(2, 2);
  o.model = "resnet20";
  o.logdir = temp_dir("straight_test");
  const TrainResult straight =
      Trainer(build_model("resnet20", kClasses), o, slices(2, 2), slices(2, 6)).run();

  std::atomic<bool> stop{false};
  std::atomic<int> given_after_stop{0};
  const BatchSourceFactory stop_at_3 = stopping(2, 6, /*at_batch=*/3, &stop, &given_after_stop);
  TrainerOptions stopped = o;
  stopped.logdir = temp_dir("stopped_in_test");
  stopped.stop_requested = &stop;
  ASSERT_TRUE(Trainer(build_model("resnet20", kClasses), stopped, slices(2, 2), stop_at_3)
                  .run()
                  .interrupted);
  TrainerOptions rest = o;
  rest.logdir = stopped.logdir;
  Trainer resumed(build_model("resnet20", kClasses), rest, slices(2, 2), slices(2, 6));
  resumed.resume(LogDir::latest_checkpoint(rest.logdir));
  EXPECT_FALSE(resumed.finished());
  const TrainResult result = resumed.run();

  EXPECT_FALSE(result.interrupted);
  EXPECT_EQ(result.max_top1, straight.max_top1);
  EXPECT_EQ(result.final_top5, straight.final_top5);
  EXPECT_EQ(result.final_samples, 24);  // 2 cores x 6 batches x 2 images
  ASSERT_EQ(eval_records(rest.logdir).size(), 1u);
  EXPECT_EQ(train_records(rest.logdir), train_records(o.logdir));  // no step trained twice
  EXPECT_TRUE(std::filesystem::exists(rest.logdir + "/model_best.safetensors"));
  EXPECT_TRUE(std::filesystem::exists(rest.logdir + "/checkpoint-epoch-1.safetensors"));
}

// A requeue of a run that ended finds nothing to do; one with more epochs goes on.
TEST(Trainer, AResumedRunThatEndedHasNothingToDo) {
  TrainerOptions o = small_options(1, 2);
  o.model = "resnet20";
  o.logdir = temp_dir("ended");
  const TrainResult ended =
      Trainer(build_model("resnet20", kClasses), o, slices(2, 2), slices(2, 1)).run();
  o.num_epochs = 0;  // a run of no epoch (--num_epochs=0 shows the outline) has not ended
  EXPECT_FALSE(
      Trainer(build_model("resnet20", kClasses), o, slices(2, 2), slices(2, 1)).finished());
  o.num_epochs = 1;
  Trainer again(build_model("resnet20", kClasses), o, slices(2, 2), slices(2, 1));
  again.resume(LogDir::latest_checkpoint(o.logdir));
  EXPECT_TRUE(again.finished());
  EXPECT_EQ(again.best_top1(), ended.max_top1);
  o.num_epochs = 2;
  Trainer longer(build_model("resnet20", kClasses), o, slices(2, 2), slices(2, 1));
  longer.resume(LogDir::latest_checkpoint(o.logdir));
  EXPECT_FALSE(longer.finished());
}

TEST(Trainer, AStopEndsEvaluateWithinOneBatch) {
  std::atomic<bool> stop{false};
  std::atomic<int> given_after_stop{0};
  TrainerOptions o = small_options(2, 2);
  o.stop_requested = &stop;
  const BatchSourceFactory stop_at_3 = stopping(2, 50, /*at_batch=*/3, &stop, &given_after_stop);
  const TrainResult result =
      Trainer(build_model("resnet20", kClasses), o, slices(2, 1), stop_at_3).evaluate();
  EXPECT_TRUE(result.interrupted);
  EXPECT_LE(given_after_stop, 2);
}

TEST(Trainer, AStopWakesACoreWaitingForTrainingData) {
  std::atomic<bool> stop{true};
  TrainerOptions o = small_options(2, 2);
  o.stop_requested = &stop;
  const BatchSourceFactory core_1_stuck = [](int rank, int n) -> std::unique_ptr<BatchSource> {
    if (rank == 1) return std::make_unique<NeverReady>();
    return std::make_unique<SliceSource>(rank, n, 2, 5);
  };
  Trainer trainer(build_model("resnet20", kClasses), o, core_1_stuck, slices(2, 1));
  EXPECT_TRUE(trainer.run().interrupted);
  EXPECT_EQ(params_of(trainer, 0), params_of(trainer, 1));  // no core took a step alone
}

TEST(Trainer, AStopWakesACoreWaitingForTestData) {
  std::atomic<bool> stop{true};
  TrainerOptions o = small_options(2, 2);
  o.stop_requested = &stop;
  const BatchSourceFactory stuck = [](int, int) { return std::make_unique<NeverReady>(); };
  EXPECT_TRUE(
      Trainer(build_model("resnet20", kClasses), o, slices(2, 1), stuck).evaluate().interrupted);
}

// --model_ema with torchvision's warmup: each epoch's test pass of the model, then of its average
// (kind eval_ema), which is swapped in and out without touching the model: training goes exactly
// as without it. The warmup epoch's updates restart the average, so its count starts over after.
TrainerOptions ema_options(const std::string& logdir) {
  TrainerOptions o = small_options(2, 2);
  o.num_epochs = 2;
  o.log_steps = 1;
  o.model = "resnet20";
  o.lr_schedule.type = "none";
  o.lr_schedule.torchvision.lr_scheduler = "steplr";
  o.lr_schedule.torchvision.lr_warmup_epochs = 1;
  o.model_ema.enabled = true;
  o.model_ema.steps = 2;    // batches 0 and 2 of the 3 of an epoch
  o.model_ema.decay = 0.9;  // adjusted for 4 images x 2 steps / 2 epochs: 0.6
  o.logdir = logdir;
  return o;
}

int64_t n_averaged_in(const std::string& checkpoint) {
  const Safetensors file = read_safetensors(checkpoint);
  const SafeTensor& t = file.tensors.at("ema.n_averaged");
  int64_t n = -1;
  std::memcpy(&n, t.data.data(), sizeof(n));
  return n;
}

TEST(Trainer, ModelEmaIsEvaluatedEachEpochAndLeavesTrainingAlone) {
  const TrainerOptions o = ema_options(temp_dir("ema"));
  Trainer with_ema(build_model("resnet20", kClasses), o, slices(2, 3), slices(2, 1));
  const TrainResult result = with_ema.run();
  TrainerOptions plain = o;
  plain.model_ema = ModelEmaOptions{};
  plain.logdir = temp_dir("no_ema");
  Trainer without(build_model("resnet20", kClasses), plain, slices(2, 3), slices(2, 1));
  const TrainResult plain_result = without.run();

  EXPECT_EQ(train_records(o.logdir), train_records(plain.logdir));
  EXPECT_EQ(result.max_top1, plain_result.max_top1);  // Max Accuracy stays the model's
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_EQ(params_of(with_ema, rank), params_of(without, rank)) << "replica " << rank;
  }
  const std::vector<nlohmann::json> model = eval_records(o.logdir);
  const std::vector<nlohmann::json> ema = eval_records(o.logdir, "eval_ema");
  ASSERT_EQ(ema.size(), 2u);
  ASSERT_EQ(model.size(), 2u);
  for (size_t i = 0; i < ema.size(); ++i) {
    EXPECT_EQ(ema[i]["epoch"], model[i]["epoch"]);
    EXPECT_EQ(ema[i]["samples"], model[i]["samples"]);
  }
  EXPECT_TRUE(eval_records(plain.logdir, "eval_ema").empty());

  EXPECT_EQ(n_averaged_in(o.logdir + "/checkpoint-epoch-1.safetensors"), 0);  // warmup
  EXPECT_EQ(n_averaged_in(o.logdir + "/checkpoint-epoch-2.safetensors"), 2);
  const Safetensors last = read_safetensors(o.logdir + "/checkpoint-last.safetensors");
  const Safetensors best = read_safetensors(o.logdir + "/model_best.safetensors");
  for (const ParamEntry& e : with_ema.replica(0).store().entries()) {
    const SafeTensor& average = last.tensors.at("ema." + e.name);
    EXPECT_EQ(average.shape, last.tensors.at(e.name).shape) << e.name;
    EXPECT_EQ(best.tensors.count("ema." + e.name), 0u) << "model_best holds the model alone";
  }
  // The average moved away from the model it last copied.
  const std::string weight = "conv1.weight";
  EXPECT_NE(last.tensors.at("ema." + weight).data, last.tensors.at(weight).data);
}

// A run stopped mid-epoch and resumed evaluates the same average as one that never stopped.
TEST(Trainer, ResumingMidEpochWithModelEmaIsExact) {
  const TrainerOptions o = ema_options(temp_dir("ema_straight"));
  Trainer(build_model("resnet20", kClasses), o, slices(2, 3), slices(2, 1)).run();

  std::atomic<bool> stop{false};
  std::atomic<int> given_after_stop{0};
  TrainerOptions interrupted = ema_options(temp_dir("ema_interrupted"));
  interrupted.stop_requested = &stop;
  // in the second epoch, after its first step (an update of the average)
  const BatchSourceFactory stop_at = [&](int rank, int n) -> std::unique_ptr<BatchSource> {
    auto source = std::make_unique<SliceSource>(rank, n, 2, 3);
    struct SecondEpoch : BatchSource {
      std::unique_ptr<BatchSource> inner;
      std::atomic<bool>* stop;
      int epoch = 0, batch = 0;
      int64_t batches_per_epoch() const override { return inner->batches_per_epoch(); }
      void start_epoch(int e) override {
        epoch = e;
        batch = 0;
        inner->start_epoch(e);
      }
      int next(Elements images, int32_t* labels) override {
        if (epoch == 2 && batch++ == 1) *stop = true;
        return inner->next(images, labels);
      }
    };
    auto wrapped = std::make_unique<SecondEpoch>();
    wrapped->inner = std::move(source);
    wrapped->stop = &stop;
    return wrapped;
  };
  EXPECT_TRUE(Trainer(build_model("resnet20", kClasses), interrupted, stop_at, slices(2, 1))
                  .run()
                  .interrupted);
  TrainerOptions rest = ema_options(interrupted.logdir);
  Trainer resumed(build_model("resnet20", kClasses), rest, slices(2, 3), slices(2, 1));
  resumed.resume(LogDir::latest_checkpoint(rest.logdir));
  resumed.run();

  EXPECT_EQ(train_records(rest.logdir), train_records(o.logdir));
  EXPECT_EQ(eval_records(rest.logdir, "eval_ema"), eval_records(o.logdir, "eval_ema"));
  const Safetensors a = read_safetensors(o.logdir + "/checkpoint-last.safetensors");
  const Safetensors b = read_safetensors(rest.logdir + "/checkpoint-last.safetensors");
  for (const auto& [name, tensor] : a.tensors) {
    if (name.rfind("ema.", 0) != 0) continue;
    ASSERT_EQ(b.tensors.count(name), 1u) << name;
    EXPECT_EQ(b.tensors.at(name).data, tensor.data) << name;
  }
}

// torchvision's script fails on a checkpoint without "model_ema" under --model-ema; here the
// error says so in one line. Without --model_ema, a checkpoint's average is left unread.
TEST(Trainer, ResumeWithModelEmaRefusesACheckpointWithoutOne) {
  TrainerOptions o = ema_options(temp_dir("ema_refused"));
  o.model_ema = ModelEmaOptions{};
  o.num_epochs = 1;
  o.lr_schedule.torchvision = TorchvisionLROptions{};
  Trainer(build_model("resnet20", kClasses), o, slices(2, 3), slices(2, 1)).run();
  TrainerOptions with_ema = ema_options(o.logdir);
  Trainer resumed(build_model("resnet20", kClasses), with_ema, slices(2, 3), slices(2, 1));
  const std::string message =
      testing::error_of([&] { resumed.resume(LogDir::latest_checkpoint(o.logdir)); });
  EXPECT_NE(message.find("holds no model EMA"), std::string::npos) << message;
  EXPECT_NE(message.find("without --model_ema"), std::string::npos) << message;

  const TrainerOptions averaged = ema_options(temp_dir("ema_ignored"));
  Trainer(build_model("resnet20", kClasses), averaged, slices(2, 3), slices(2, 1)).run();
  TrainerOptions plain = averaged;
  plain.model_ema = ModelEmaOptions{};
  plain.num_epochs = 3;
  Trainer goes_on(build_model("resnet20", kClasses), plain, slices(2, 3), slices(2, 1));
  goes_on.resume(LogDir::latest_checkpoint(averaged.logdir));
  EXPECT_EQ(goes_on.first_epoch(), 3);
}

// A stop in the average's test pass, after the model's: that epoch is evaluated again on resume,
// both passes, and the records are those of a run that never stopped.
TEST(Trainer, AStopInTheModelEmaTestPassIsEvaluatedOnResume) {
  TrainerOptions o = ema_options(temp_dir("ema_straight_test"));
  o.num_epochs = 1;
  o.lr_schedule.torchvision.lr_warmup_epochs = 0;
  Trainer(build_model("resnet20", kClasses), o, slices(2, 3), slices(2, 6)).run();

  std::atomic<bool> stop{false};
  // The test source's second pass of the epoch is the average's: stop at its batch 3.
  struct StopInSecondPass : BatchSource {
    std::unique_ptr<BatchSource> inner;
    std::atomic<bool>* stop = nullptr;
    int passes = 0, batch = 0;
    int64_t batches_per_epoch() const override { return inner->batches_per_epoch(); }
    void start_epoch(int e) override {
      ++passes;
      batch = 0;
      inner->start_epoch(e);
    }
    int next(Elements images, int32_t* labels) override {
      if (passes == 2 && batch++ == 3) *stop = true;
      return inner->next(images, labels);
    }
  };
  const BatchSourceFactory stop_in_ema = [&](int rank, int n) -> std::unique_ptr<BatchSource> {
    auto source = std::make_unique<StopInSecondPass>();
    source->inner = std::make_unique<SliceSource>(rank, n, 2, 6);
    source->stop = &stop;
    return source;
  };
  TrainerOptions stopped = o;
  stopped.logdir = temp_dir("ema_stopped_in_test");
  stopped.stop_requested = &stop;
  ASSERT_TRUE(Trainer(build_model("resnet20", kClasses), stopped, slices(2, 3), stop_in_ema)
                  .run()
                  .interrupted);
  EXPECT_TRUE(eval_records(stopped.logdir, "eval_ema").empty());
  TrainerOptions rest = o;
  rest.logdir = stopped.logdir;
  Trainer resumed(build_model("resnet20", kClasses), rest, slices(2, 3), slices(2, 6));
  resumed.resume(LogDir::latest_checkpoint(rest.logdir));
  EXPECT_FALSE(resumed.run().interrupted);

  EXPECT_EQ(train_records(rest.logdir), train_records(o.logdir));  // no step trained twice
  EXPECT_EQ(eval_records(rest.logdir), eval_records(o.logdir));
  EXPECT_EQ(eval_records(rest.logdir, "eval_ema"), eval_records(o.logdir, "eval_ema"));
  EXPECT_EQ(eval_records(o.logdir, "eval_ema").size(), 1u);
}

}  // namespace
}  // namespace xtrain
