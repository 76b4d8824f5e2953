// Loader over a scripted Dataset: batches follow the sampler, are the same for any number of
// workers, replace unreadable training samples and leave unreadable test samples out, stop at the
// first one under strict, and never leave a thread waiting once closed.
#include "data/loader.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "data/transforms.h"

namespace xtrain {
namespace {

using namespace std::chrono_literals;

// Sample i is one pixel (i mod 256, a draw of its generator, 7) with label i. Indices in
// `unreadable` throw; a sample in `held` waits until release() (a slow disk).
constexpr int kPixelBytes = 3;
class ScriptedDataset : public Dataset {
 public:
  explicit ScriptedDataset(int64_t n, std::set<int64_t> unreadable = {}, int64_t held = -1)
      : n_(n), unreadable_(std::move(unreadable)), held_(held) {}

  int64_t size() const override { return n_; }
  int64_t image_bytes() const override { return kPixelBytes; }
  EraseBox get(int64_t index, Rng& rng, uint8_t* image, int32_t* label) const override {
    if (unreadable_.count(index)) {
      throw UnreadableImage(fmt::format("sample{}.png: not a decodable image", index), "test");
    }
    if (index == held_) {
      std::unique_lock<std::mutex> lock(mutex_);
      released_cv_.wait(lock, [this] { return released_; });
    }
    image[0] = static_cast<uint8_t>(index);
    image[1] = static_cast<uint8_t>(rng.uniform() * 256);
    image[2] = 7;
    *label = static_cast<int32_t>(index);
    ++done_;
    return {};
  }

  bool is_unreadable(int64_t index) const { return unreadable_.count(index) > 0; }
  void release() const {
    std::lock_guard<std::mutex> lock(mutex_);
    released_ = true;
    released_cv_.notify_all();
  }
  int64_t done() const { return done_; }

 private:
  int64_t n_;
  std::set<int64_t> unreadable_;
  int64_t held_;
  mutable std::mutex mutex_;
  mutable std::condition_variable released_cv_;
  mutable bool released_ = false;
  mutable std::atomic<int64_t> done_{0};
};

struct Batch {
  std::vector<float> images;
  std::vector<int32_t> labels;
  bool operator==(const Batch& o) const { return images == o.images && labels == o.labels; }
};

SamplerOptions sampler(int64_t n, bool train = true, int rank = 0, int replicas = 1) {
  SamplerOptions s;
  s.dataset_size = n;
  s.train = train;
  s.rank = rank;
  s.num_replicas = replicas;
  s.seed = 7;
  return s;
}

LoaderOptions loader_options(int batch_size, int workers, bool strict = false) {
  LoaderOptions o;
  o.batch_size = batch_size;
  o.num_workers = workers;
  o.prefetch_factor = 2;
  o.loader_prefetch_size = 3;
  o.strict = strict;
  return o;
}

std::unique_ptr<Loader> make_loader(std::shared_ptr<const Dataset> data, const SamplerOptions& s,
                                    const LoaderOptions& o) {
  return std::make_unique<Loader>(std::move(data), std::make_shared<UnreadableImages>(), s, o);
}

// Every batch of `epoch`.
std::vector<Batch> read_epoch(Loader& loader, int epoch, int batch_size) {
  loader.start_epoch(epoch);
  std::vector<Batch> batches;
  for (;;) {
    Batch b{std::vector<float>(batch_size * kPixelBytes), std::vector<int32_t>(batch_size)};
    const int n = loader.next(b.images.data(), b.labels.data());
    if (n == 0) break;
    b.images.resize(n * kPixelBytes);
    b.labels.resize(n);
    batches.push_back(std::move(b));
  }
  return batches;
}

std::vector<int32_t> all_labels(const std::vector<Batch>& batches) {
  std::vector<int32_t> labels;
  for (const Batch& b : batches) labels.insert(labels.end(), b.labels.begin(), b.labels.end());
  return labels;
}

TEST(Loader, BatchesFollowTheSamplerWithAPartialLastBatch) {
  auto data = std::make_shared<ScriptedDataset>(10);
  auto loader = make_loader(data, sampler(10), loader_options(4, 2));
  EXPECT_EQ(loader->batches_per_epoch(), 3);
  const std::vector<Batch> epoch = read_epoch(*loader, 1, 4);
  ASSERT_EQ(epoch.size(), 3u);
  EXPECT_EQ(epoch[2].labels.size(), 2u);
  const std::vector<int64_t> order = DistributedSampler(sampler(10)).indices(1);
  EXPECT_EQ(all_labels(epoch), std::vector<int32_t>(order.begin(), order.end()));
  EXPECT_EQ(loader->skipped_images(), 0);
}

// Sample i is two pixels of 200 with label i; an odd sample asks for its second pixel erased, and
// those in `unreadable` throw.
class ErasingDataset : public Dataset {
 public:
  explicit ErasingDataset(int64_t n, std::set<int64_t> unreadable = {})
      : n_(n), unreadable_(std::move(unreadable)) {}
  int64_t size() const override { return n_; }
  int64_t image_bytes() const override { return 6; }
  EraseBox get(int64_t index, Rng&, uint8_t* image, int32_t* label) const override {
    if (unreadable_.count(index)) throw UnreadableImage("unreadable", "test");
    std::fill_n(image, 6, 200);
    *label = static_cast<int32_t>(index);
    EraseBox box;
    if (index % 2 == 1) box.left = 1, box.height = 1, box.width = 1, box.image_width = 2;
    return box;
  }

 private:
  int64_t n_;
  std::set<int64_t> unreadable_;
};

// RandomErasing zeroes its box after Normalize: the loader carries each sample's box beside its
// pixels and zeroes it in the floats it writes, in training and in a test batch that had to wait
// for readable samples.
TEST(Loader, ZeroesEachSamplesEraseBoxAfterNormalizing) {
  float normalized_200[3];
  const uint8_t pixel[3] = {200, 200, 200};
  normalize_pixels(pixel, 3, normalized_200);
  for (bool train : {true, false}) {
    SCOPED_TRACE(train ? "training" : "test");
    auto data = std::make_shared<ErasingDataset>(9, std::set<int64_t>{4});
    auto loader = make_loader(data, sampler(9, train), loader_options(3, 2));
    loader->start_epoch(1);
    std::vector<float> images(3 * 6);
    std::vector<int32_t> labels(3);
    int samples = 0;
    while (const int n = loader->next(images.data(), labels.data())) {
      for (int i = 0; i < n; ++i, ++samples) {
        for (int c = 0; c < 3; ++c) {
          EXPECT_EQ(images[i * 6 + c], normalized_200[c]) << "sample " << labels[i];
          EXPECT_EQ(images[i * 6 + 3 + c], labels[i] % 2 == 1 ? 0.0f : normalized_200[c])
              << "sample " << labels[i];
        }
      }
    }
    EXPECT_EQ(samples, train ? 9 : 8);
  }
}

// The memory plan counts a loader by memory_for(), which sizes the images' buffers the loader
// allocates: a ring of min(loader_prefetch_size, num_workers * prefetch_factor) batches, and for
// a test loader the batch of readable images it holds back.
TEST(Loader, CountsTheBuffersItAllocates) {
  auto data = std::make_shared<ScriptedDataset>(10);
  const LoaderOptions o = loader_options(4, 1);  // a ring of min(3, 1 * 2) slots
  const size_t batch_bytes = 4 * kPixelBytes;
  for (bool train : {true, false}) {
    SCOPED_TRACE(train ? "training" : "test");
    const SourceMemory memory = Loader::memory_for(o, kPixelBytes, train);
    EXPECT_EQ(memory.buffers, (train ? 2 : 3) * batch_bytes);
    EXPECT_EQ(make_loader(data, sampler(10, train), o)->image_buffer_bytes(), memory.buffers);
    EXPECT_EQ(memory.threads, 1);
    EXPECT_GT(memory.decoding, 0u);
  }
  EXPECT_EQ(Loader::memory_for(loader_options(4, 3), kPixelBytes, true).decoding,
            3 * Loader::memory_for(o, kPixelBytes, true).decoding);
}

// A bfloat16 batch is the float batch rounded (as a bfloat16 plan stores its input).
TEST(Loader, WritesABFloat16BatchRounded) {
  auto data = std::make_shared<ScriptedDataset>(9);
  auto loader = make_loader(data, sampler(9), loader_options(4, 2));
  const std::vector<Batch> floats = read_epoch(*loader, 1, 4);
  loader->start_epoch(1);
  for (const Batch& expected : floats) {
    std::vector<BFloat16> images(4 * kPixelBytes);
    std::vector<int32_t> labels(4);
    const int n = loader->next(images.data(), labels.data());
    ASSERT_EQ(n, static_cast<int>(expected.labels.size()));
    labels.resize(n);
    EXPECT_EQ(labels, expected.labels);
    for (int i = 0; i < n * kPixelBytes; ++i) {
      EXPECT_EQ(images[i].bits, to_bfloat16(expected.images[i]).bits) << "element " << i;
    }
  }
}

TEST(Loader, DropLastDropsThePartialBatch) {
  SamplerOptions s = sampler(10);
  s.drop_last = true;
  auto loader = make_loader(std::make_shared<ScriptedDataset>(10), s, loader_options(4, 2));
  EXPECT_EQ(loader->batches_per_epoch(), 2);
  EXPECT_EQ(read_epoch(*loader, 1, 4).size(), 2u);
}

TEST(Loader, TheSameBatchesWhateverTheNumberOfWorkers) {
  auto data = std::make_shared<ScriptedDataset>(37);
  auto one = make_loader(data, sampler(37), loader_options(5, 1));
  auto four = make_loader(data, sampler(37), loader_options(5, 4));
  for (int epoch = 1; epoch <= 2; ++epoch) {
    const std::vector<Batch> a = read_epoch(*one, epoch, 5);
    const std::vector<Batch> b = read_epoch(*four, epoch, 5);
    ASSERT_EQ(a.size(), 8u);
    EXPECT_TRUE(a == b) << "epoch " << epoch;
  }
  EXPECT_FALSE(read_epoch(*one, 1, 5) == read_epoch(*one, 2, 5));  // reshuffled and re-drawn
}

TEST(Loader, ReplicasSplitTheEpoch) {
  auto data = std::make_shared<ScriptedDataset>(9);
  std::multiset<int32_t> seen;
  for (int rank = 0; rank < 3; ++rank) {
    auto loader = make_loader(data, sampler(9, /*train=*/false, rank, 3), loader_options(2, 2));
    for (int32_t label : all_labels(read_epoch(*loader, 1, 2))) seen.insert(label);
  }
  EXPECT_EQ(seen, (std::multiset<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
}

// Training replaces an unreadable sample, so a training batch stays full.
TEST(Loader, AnUnreadableTrainingSampleIsReplacedByTheNextReadableOne) {
  auto data = std::make_shared<ScriptedDataset>(12, std::set<int64_t>{2, 5});
  auto loader = make_loader(data, sampler(12), loader_options(4, 3));
  const std::vector<Batch> epoch = read_epoch(*loader, 1, 4);
  ASSERT_EQ(epoch.size(), 3u);
  std::vector<int32_t> expected;
  const std::vector<int64_t> order = DistributedSampler(sampler(12)).indices(1);
  for (size_t i = 0; i < order.size(); ++i) {  // a bad sample's slot takes the next good one
    size_t good = i;
    while (data->is_unreadable(order[good])) good = (good + 1) % order.size();
    expected.push_back(static_cast<int32_t>(order[good]));
  }
  EXPECT_EQ(all_labels(epoch), expected);
  EXPECT_EQ(loader->skipped_images(), 2);
  read_epoch(*loader, 2, 4);
  EXPECT_EQ(loader->skipped_images(), 4);  // counted every epoch they are skipped
}

// The test set scores each readable sample once: unreadable ones are left out, and the batches
// are the readable samples in order, full but for the last.
TEST(Loader, UnreadableTestSamplesAreLeftOutAndTheBatchesRefilled) {
  auto data = std::make_shared<ScriptedDataset>(12, std::set<int64_t>{2, 5});
  auto loader = make_loader(data, sampler(12, /*train=*/false), loader_options(4, 3));
  const std::vector<Batch> epoch = read_epoch(*loader, 1, 4);
  ASSERT_EQ(epoch.size(), 3u);
  EXPECT_EQ(epoch[0].labels, (std::vector<int32_t>{0, 1, 3, 4}));
  EXPECT_EQ(epoch[1].labels, (std::vector<int32_t>{6, 7, 8, 9}));
  EXPECT_EQ(epoch[2].labels, (std::vector<int32_t>{10, 11}));
  const uint8_t sample_6[kPixelBytes] = {6, 0, 7};  // its first byte is its index
  float normalized[kPixelBytes];
  normalize_pixels(sample_6, kPixelBytes, normalized);
  EXPECT_EQ(epoch[1].images[0], normalized[0]) << "pixels move with their labels";
  EXPECT_EQ(loader->skipped_images(), 2);
  EXPECT_EQ(all_labels(read_epoch(*loader, 2, 4)), all_labels(epoch));  // known: left out again
  EXPECT_EQ(loader->skipped_images(), 4);
}

// A batch of the ring whose every sample is unreadable ends neither the epoch nor a batch early.
TEST(Loader, AWholeBatchOfUnreadableTestSamplesIsPassedOver) {
  auto data = std::make_shared<ScriptedDataset>(10, std::set<int64_t>{0, 1, 2, 3, 4, 5, 8});
  auto loader = make_loader(data, sampler(10, /*train=*/false), loader_options(2, 2));
  EXPECT_EQ(loader->batches_per_epoch(), 5);  // an upper bound once samples are left out
  const std::vector<Batch> epoch = read_epoch(*loader, 1, 2);
  ASSERT_EQ(epoch.size(), 2u);
  EXPECT_EQ(epoch[0].labels, (std::vector<int32_t>{6, 7}));
  EXPECT_EQ(epoch[1].labels, (std::vector<int32_t>{9}));
  EXPECT_EQ(loader->skipped_images(), 7);
}

// Over every replica's shard, each readable test sample is scored exactly once.
TEST(Loader, ReplicasScoreEachReadableTestSampleOnce) {
  auto data = std::make_shared<ScriptedDataset>(11, std::set<int64_t>{1, 4, 5, 9});
  std::multiset<int32_t> seen;
  for (int rank = 0; rank < 3; ++rank) {
    auto loader = make_loader(data, sampler(11, /*train=*/false, rank, 3), loader_options(2, 2));
    for (int32_t label : all_labels(read_epoch(*loader, 1, 2))) seen.insert(label);
  }
  EXPECT_EQ(seen, (std::multiset<int32_t>{0, 2, 3, 6, 7, 8, 10}));
}

TEST(Loader, StrictMakesTheFirstUnreadableSampleAnError) {
  auto data = std::make_shared<ScriptedDataset>(8, std::set<int64_t>{5});
  auto loader = make_loader(data, sampler(8, /*train=*/false), loader_options(4, 2, true));
  loader->start_epoch(1);
  std::vector<float> images(4 * kPixelBytes);
  std::vector<int32_t> labels(4);
  try {
    loader->next(images.data(), labels.data());
    loader->next(images.data(), labels.data());
    FAIL() << "no error";
  } catch (const UnreadableImage& e) {
    EXPECT_STREQ(e.what(), "unreadable image sample5.png: not a decodable image (--strict)");
  }
}

TEST(Loader, AllUnreadableIsAnErrorNotAHang) {
  auto data = std::make_shared<ScriptedDataset>(3, std::set<int64_t>{0, 1, 2});
  for (bool train : {true, false}) {
    SCOPED_TRACE(train ? "training" : "test");
    auto loader = make_loader(data, sampler(3, train), loader_options(2, 2));
    loader->start_epoch(1);
    std::vector<float> images(2 * kPixelBytes);
    std::vector<int32_t> labels(2);
    EXPECT_THROW(loader->next(images.data(), labels.data()), Error);
  }
}

TEST(Loader, ASlowSampleHoldsOnlyItsOwnBatch) {
  // Sample 0 (the first of the test order) hangs; the other workers go on filling the ring:
  // 3 batches of 4 minus the held one.
  auto data = std::make_shared<ScriptedDataset>(40, std::set<int64_t>{}, /*held=*/0);
  auto loader = make_loader(data, sampler(40, /*train=*/false), loader_options(4, 4));
  loader->start_epoch(1);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (data->done() < 11 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(data->done(), 11);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(data->done(), 11);  // bounded: no batch beyond the ring is started
  data->release();
  EXPECT_EQ(all_labels(read_epoch(*loader, 1, 4)).size(), 40u);
}

TEST(Loader, CloseWakesAWaitingNext) {
  auto data = std::make_shared<ScriptedDataset>(8, std::set<int64_t>{}, /*held=*/0);
  auto loader = make_loader(data, sampler(8, /*train=*/false), loader_options(4, 2));
  loader->start_epoch(1);
  std::vector<float> images(4 * kPixelBytes);
  std::vector<int32_t> labels(4);
  auto waiting =
      std::async(std::launch::async, [&] { return loader->next(images.data(), labels.data()); });
  EXPECT_EQ(waiting.wait_for(50ms), std::future_status::timeout);  // held by sample 0
  loader->close();
  ASSERT_EQ(waiting.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(waiting.get(), 0);
  EXPECT_EQ(loader->next(images.data(), labels.data()), 0);
  data->release();  // let the held worker finish so the loader can be destroyed
}

// A stop closes the loader while a worker is stuck in a read (a FIFO, a hung mount): starting
// the next epoch (the test pass after an interrupted one) must not wait for that worker.
TEST(Loader, AClosedLoaderStartsAnEpochWithoutWaitingForAStuckWorker) {
  auto data = std::make_shared<ScriptedDataset>(8, std::set<int64_t>{}, /*held=*/0);
  auto loader = make_loader(data, sampler(8, /*train=*/false), loader_options(4, 2));
  loader->start_epoch(1);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (data->done() < 4 && std::chrono::steady_clock::now() < deadline) {  // all but sample 0
    std::this_thread::sleep_for(1ms);
  }
  loader->close();
  auto starting = std::async(std::launch::async, [&] {
    loader->start_epoch(2);
    std::vector<float> images(4 * kPixelBytes);
    std::vector<int32_t> labels(4);
    return loader->next(images.data(), labels.data());
  });
  const bool returned = starting.wait_for(5s) == std::future_status::ready;  // a hang guard
  data->release();  // lets the held worker finish, so the loader can be destroyed either way
  EXPECT_TRUE(returned) << "start_epoch waited for the stuck worker";
  EXPECT_EQ(starting.get(), 0);
}

TEST(Loader, ANewEpochMayStartBeforeTheLastOneIsRead) {
  auto data = std::make_shared<ScriptedDataset>(20);
  auto loader = make_loader(data, sampler(20), loader_options(4, 3));
  loader->start_epoch(1);
  std::vector<float> images(4 * kPixelBytes);
  std::vector<int32_t> labels(4);
  ASSERT_EQ(loader->next(images.data(), labels.data()), 4);  // as --num_steps stops early
  const std::vector<Batch> second = read_epoch(*loader, 2, 4);
  auto fresh = make_loader(data, sampler(20), loader_options(4, 1));
  EXPECT_TRUE(second == read_epoch(*fresh, 2, 4));
}

}  // namespace
}  // namespace xtrain
