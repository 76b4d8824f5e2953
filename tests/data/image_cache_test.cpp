// ImageCache: an image stored is found with its pixels, the first copy stored stays, the cache
// never holds more than its bytes, and threads storing and finding the same images at once keep
// one copy each (run under TSan: the "threads" label).
#include "data/image_cache.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace xtrain {
namespace {

// A rows x cols RGB image whose pixels depend on `seed`.
cv::Mat image(int rows, int cols, int seed) {
  cv::Mat rgb(rows, cols, CV_8UC3);
  cv::RNG rng(seed);
  rng.fill(rgb, cv::RNG::UNIFORM, 0, 256);
  return rgb;
}

bool same_pixels(const cv::Mat& a, const cv::Mat& b) {
  return a.size() == b.size() && a.type() == b.type() && cv::norm(a, b, cv::NORM_INF) == 0;
}

TEST(ImageCache, FindsWhatWasStored) {
  ImageCache cache(3, size_t{1} << 20);
  EXPECT_TRUE(cache.find(1).empty());
  const cv::Mat rgb = image(5, 7, 1);
  cache.store(1, rgb);
  EXPECT_TRUE(same_pixels(cache.find(1), rgb));
  EXPECT_TRUE(cache.find(0).empty());
  EXPECT_TRUE(cache.find(2).empty());
  EXPECT_EQ(cache.stored_bytes(), ImageCache::entry_bytes(7, 5));
}

TEST(ImageCache, StoresAViewOfALargerImageAsItsPixels) {
  ImageCache cache(1, size_t{1} << 20);
  const cv::Mat whole = image(9, 9, 2);
  const cv::Mat view = whole(cv::Rect(2, 1, 4, 6));  // rows 6 x cols 4, not continuous
  ASSERT_FALSE(view.isContinuous());
  cache.store(0, view);
  EXPECT_TRUE(same_pixels(cache.find(0), view.clone()));
}

TEST(ImageCache, TheFirstCopyStoredStays) {
  ImageCache cache(1, size_t{1} << 20);
  const cv::Mat first = image(4, 4, 1);
  cache.store(0, first);
  cache.store(0, image(4, 4, 2));
  EXPECT_TRUE(same_pixels(cache.find(0), first));
  EXPECT_EQ(cache.stored_bytes(), ImageCache::entry_bytes(4, 4));
}

// The memory plan counts bytes(): an image that would go over it is decoded each time instead.
TEST(ImageCache, NeverHoldsMoreThanItsBytes) {
  ImageCache cache(3, 2 * ImageCache::entry_bytes(4, 4));
  cache.store(0, image(4, 4, 1));
  cache.store(1, image(5, 4, 2));  // larger than what is left
  cache.store(2, image(4, 4, 3));
  EXPECT_FALSE(cache.find(0).empty());
  EXPECT_TRUE(cache.find(1).empty());
  EXPECT_FALSE(cache.find(2).empty());
  EXPECT_EQ(cache.stored_bytes(), 2 * ImageCache::entry_bytes(4, 4));
  EXPECT_GE(cache.bytes(), 2 * ImageCache::entry_bytes(4, 4) + 3 * sizeof(void*));
}

TEST(ImageCache, AnEntryCountsItsPixelsAndTheAllocatorsShare) {
  EXPECT_GE(ImageCache::entry_bytes(28, 28), size_t{28 * 28 * 3});
  EXPECT_LE(ImageCache::entry_bytes(28, 28), size_t{28 * 28 * 3 + 128});
  // A block large enough to be mapped on its own takes whole pages.
  EXPECT_GE(ImageCache::entry_bytes(500, 375), size_t{500 * 375 * 3});
  EXPECT_LE(ImageCache::entry_bytes(500, 375), size_t{500 * 375 * 3 + 4096 + 128});
}

// Loader workers of every core decode the same images at once (--ra_sampler sends an image to
// several cores in one epoch): each image ends up stored once, and every find sees whole pixels.
TEST(ImageCache, ThreadsStoringTheSameImagesKeepOneCopyEach) {
  constexpr int kImages = 64, kThreads = 4;
  std::vector<cv::Mat> images;
  for (int i = 0; i < kImages; ++i) images.push_back(image(6 + i % 3, 5, i));
  ImageCache cache(kImages, size_t{1} << 20);
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 2; ++round) {
        for (int i = 0; i < kImages; ++i) {
          const int index = (i + t * 7) % kImages;
          const cv::Mat found = cache.find(index);
          if (found.empty()) {
            cache.store(index, images[index].clone());  // each thread decodes its own copy
          } else if (!same_pixels(found, images[index])) {
            ++wrong[t];
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  size_t expected = 0;
  for (int i = 0; i < kImages; ++i) {
    EXPECT_TRUE(same_pixels(cache.find(i), images[i])) << i;
    expected += ImageCache::entry_bytes(images[i].cols, images[i].rows);
  }
  EXPECT_EQ(cache.stored_bytes(), expected);
  EXPECT_EQ(wrong, std::vector<int>(kThreads, 0));
}

}  // namespace
}  // namespace xtrain
