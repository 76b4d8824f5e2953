// --datadir end to end on real files: the layout checks, and bad files among good ones skipped
// (or fatal under strict) by the loaders the factories make.
#include "data/image_folder_source.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "data/image_cache.h"
#include "tests/data/temp_folder.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using testing::png_bytes;
using testing::TempFolder;

constexpr int kSize = 4;

ImageFolderOptions options(const std::string& dir, bool strict = false) {
  ImageFolderOptions o;
  o.datadir = dir;
  o.augment = "cifar";
  o.loader.num_workers = 2;
  o.loader.strict = strict;
  return o;
}

std::string open_error(const ImageFolderOptions& o) {
  return testing::error_of([&] { open_image_folders(o, kSize, 2, 2, 1); });
}

// Reads one epoch of `source`; returns the labels.
std::vector<int32_t> read_all(BatchSource& source, int batch_size) {
  source.start_epoch(1);
  std::vector<float> images(batch_size * kSize * kSize * 3);
  std::vector<int32_t> labels(batch_size), all;
  while (int n = source.next(images.data(), labels.data())) {
    all.insert(all.end(), labels.begin(), labels.begin() + n);
  }
  return all;
}

// One epoch of `source`: its images, as floats, and labels.
struct Epoch {
  std::vector<float> images;
  std::vector<int32_t> labels;
};

Epoch read_epoch(BatchSource& source, int batch_size, int epoch) {
  source.start_epoch(epoch);
  Epoch all;
  std::vector<float> images(batch_size * kSize * kSize * 3);
  std::vector<int32_t> labels(batch_size);
  while (int n = source.next(images.data(), labels.data())) {
    all.images.insert(all.images.end(), images.begin(), images.begin() + n * kSize * kSize * 3);
    all.labels.insert(all.labels.end(), labels.begin(), labels.begin() + n);
  }
  return all;
}

TEST(ImageFolderSource, FindsTheClassesAndReadsBothSplits) {
  TempFolder t;
  for (const char* split : {"train", "val"}) {
    for (const char* cls : {"cat", "dog", "eel"}) {
      t.write(std::string(split) + "/" + cls + "/a.png", png_bytes());
    }
  }
  const ImageFolderSources sources = open_image_folders(options(t.path()), kSize, 2, 2, 1);
  EXPECT_EQ(sources.num_classes, 3);
  auto train = sources.train(0, 1);
  auto test = sources.test(0, 1);
  std::vector<int32_t> labels = read_all(*train, 2);
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(labels, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(read_all(*test, 2), (std::vector<int32_t>{0, 1, 2}));
}

// The memory plan asks what each core's loaders take at a batch size of its choice: what a loader
// of that batch size over the split's RGB images takes.
TEST(ImageFolderSource, CountsTheLoadersAtAnyBatchSize) {
  TempFolder t;
  t.write("train/cat/a.png", png_bytes());
  t.write("val/cat/a.png", png_bytes());
  const ImageFolderOptions o = options(t.path());
  const ImageFolderSources sources = open_image_folders(o, kSize, 2, 2, 1);
  LoaderOptions loader = o.loader;
  loader.batch_size = 5;
  for (bool train : {true, false}) {
    const SourceMemory counted = (train ? sources.train_memory : sources.test_memory)(5);
    const SourceMemory expected = Loader::memory_for(loader, kSize * kSize * 3, train);
    EXPECT_EQ(counted.buffers, expected.buffers);
    EXPECT_EQ(counted.decoding, expected.decoding);
    EXPECT_EQ(counted.threads, expected.threads);
  }
}

// Under --cache_dataset each image is decoded once, then transformed from memory: every epoch's
// batches are bitwise those without the cache (random crops included), an unreadable file is
// skipped as without it, and a file gone after the first epoch is still read.
TEST(ImageFolderSource, CachedImagesGiveTheSameBatchesAndAreDecodedOnce) {
  TempFolder t;
  cv::RNG rng(3);
  size_t image_bytes = 0;
  for (int i = 0; i < 6; ++i) {
    cv::Mat image(10 + i, 14, CV_8UC3);
    rng.fill(image, cv::RNG::UNIFORM, 0, 256);
    for (const char* split : {"train", "val"}) {
      t.write_image(fmt::format("{}/{}/{}.png", split, i % 2 ? "cat" : "dog", i), image);
    }
    image_bytes += ImageCache::entry_bytes(14, 10 + i);
  }
  t.write("val/cat/bad.png", {'n', 'o', 't'});
  ImageFolderOptions o = options(t.path());
  o.augment = "imagenet";  // random resized crops of the whole image
  const ImageFolderSources plain = open_image_folders(o, kSize, 4, 4, 1);
  o.cache_dataset = true;
  const ImageFolderSources cached = open_image_folders(o, kSize, 4, 4, 1);
  EXPECT_EQ(plain.train_cache_bytes, 0u);
  EXPECT_EQ(cached.train_cache_bytes, ImageCache(6, image_bytes).bytes());
  EXPECT_EQ(cached.test_cache_bytes, ImageCache(7, image_bytes).bytes());
  auto plain_train = plain.train(0, 1), cached_train = cached.train(0, 1);
  auto plain_test = plain.test(0, 1), cached_test = cached.test(0, 1);
  for (int epoch = 1; epoch <= 2; ++epoch) {
    const Epoch train = read_epoch(*plain_train, 4, epoch);
    const Epoch test = read_epoch(*plain_test, 4, epoch);
    if (epoch == 2) std::filesystem::remove_all(t.path());  // the cache holds every image now
    const Epoch cached_train_epoch = read_epoch(*cached_train, 4, epoch);
    const Epoch cached_test_epoch = read_epoch(*cached_test, 4, epoch);
    EXPECT_EQ(cached_train_epoch.images, train.images) << "epoch " << epoch;
    EXPECT_EQ(cached_train_epoch.labels, train.labels) << "epoch " << epoch;
    EXPECT_EQ(cached_test_epoch.images, test.images) << "epoch " << epoch;
    EXPECT_EQ(cached_test_epoch.labels, test.labels) << "epoch " << epoch;
    EXPECT_EQ(test.labels.size(), 6u);
  }
  EXPECT_EQ(cached_train->skipped_images(), 0);
  EXPECT_EQ(cached_test->skipped_images(), plain_test->skipped_images());
  EXPECT_EQ(cached_test->skipped_images(), 2);  // bad.png, once per epoch
}

TEST(ImageFolderSource, LayoutErrorsNameThePath) {
  TempFolder t;
  EXPECT_EQ(open_error(options(t.path() + "/nope")),
            "--datadir " + t.path() + "/nope: no such folder");
  EXPECT_EQ(open_error(options(t.path())), t.path() + "/train: no such folder");
  t.write("train/cat/a.png", png_bytes());
  t.write("train/dog/a.png", png_bytes());
  EXPECT_EQ(open_error(options(t.path())), t.path() + "/val: no such folder");
  t.write("val/cat/a.png", png_bytes());
  t.write("val/emu/a.png", png_bytes());
  EXPECT_EQ(open_error(options(t.path())), t.path() + "/val: the classes differ from " + t.path() +
                                               "/train's: missing 'dog', extra 'emu'");
}

// A val split of one class: 0.png (good), 1.png (zero bytes), 2.png (text), 3.png (half a PNG),
// 4.jpg (half a JPEG), 5.png (good).
void write_bad_files(const TempFolder& t) {
  t.write("train/c/0.png", png_bytes());
  t.write("val/c/0.png", png_bytes(10));
  t.write("val/c/1.png", {});
  t.write("val/c/2.png", {'n', 'o', 't', ' ', 'a', 'n', ' ', 'i', 'm', 'a', 'g', 'e'});
  const std::vector<uint8_t> png = png_bytes(20, 16);
  t.write("val/c/3.png", {png.begin(), png.begin() + png.size() / 2});
  std::vector<uint8_t> jpeg;
  cv::imencode(".jpg", cv::Mat(16, 16, CV_8UC3, cv::Scalar::all(30)), jpeg);
  t.write("val/c/4.jpg", {jpeg.begin(), jpeg.begin() + jpeg.size() / 2});
  t.write("val/c/5.png", png_bytes(50));
}

TEST(ImageFolderSource, UnreadableFilesAreSkippedAndCounted) {
  TempFolder t;
  write_bad_files(t);
  const ImageFolderSources sources = open_image_folders(options(t.path()), kSize, 3, 3, 1);
  auto test = sources.test(0, 1);
  EXPECT_EQ(read_all(*test, 3).size(), 2u);  // the readable images, each scored once
  EXPECT_EQ(test->skipped_images(), 4);
}

TEST(ImageFolderSource, UnreadableFileWithoutPermissionIsSkipped) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads any file";
  TempFolder t;
  t.write("train/c/0.png", png_bytes());
  t.write("val/c/0.png", png_bytes());
  const std::string locked = t.write("val/c/1.png", png_bytes());
  std::filesystem::permissions(locked, std::filesystem::perms::none);
  auto test = open_image_folders(options(t.path()), kSize, 2, 2, 1).test(0, 1);
  EXPECT_EQ(read_all(*test, 2).size(), 2u);
  EXPECT_EQ(test->skipped_images(), 1);
}

TEST(ImageFolderSource, StrictStopsAtTheFirstUnreadableFile) {
  TempFolder t;
  write_bad_files(t);
  auto test = open_image_folders(options(t.path(), /*strict=*/true), kSize, 3, 3, 1).test(0, 1);
  try {
    read_all(*test, 3);
    FAIL() << "no error";
  } catch (const UnreadableImage& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(t.path() + "/val/c/"), std::string::npos) << message;
    EXPECT_NE(message.find("(--strict)"), std::string::npos) << message;
  }
}

TEST(ImageFolderSource, FilesOverTheImageLimitsAreSkipped) {
  TempFolder t;
  t.write("train/c/0.png", png_bytes());
  t.write("val/c/0.png", png_bytes(10, 4));   // 16 pixels
  t.write("val/c/1.png", png_bytes(10, 16));  // 256 pixels
  std::vector<uint8_t> padded = png_bytes(10, 4);
  padded.resize(5000);  // decoders ignore what follows the end chunk
  t.write("val/c/2.png", padded);
  ImageFolderOptions o = options(t.path());
  o.image_limits.max_pixels = 100;
  o.image_limits.max_bytes = 4000;
  auto test = open_image_folders(o, kSize, 3, 3, 1).test(0, 1);
  EXPECT_EQ(read_all(*test, 3).size(), 1u);
  EXPECT_EQ(test->skipped_images(), 2);
}

}  // namespace
}  // namespace xtrain
