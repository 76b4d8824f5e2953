// image_cache_size: the cache's bytes from the files' headers: each image that will decode counts
// its entry, one that will not (unreadable, over the limits) nothing, and a JPEG whose frame
// header lies beyond the first bytes read is found in the whole file.
#include "data/image_cache_size.h"

#include <gtest/gtest.h>

#include <opencv2/imgcodecs.hpp>

#include "data/image_cache.h"
#include "tests/data/temp_folder.h"

namespace xtrain {
namespace {

using testing::png_bytes;
using testing::TempFolder;

TEST(ImageCacheSize, CountsTheImagesThatWillDecode) {
  TempFolder t;
  std::vector<std::string> paths = {
      t.write("a.png", png_bytes(10, 4)),
      t.write_image("b.jpg", cv::Mat(30, 20, CV_8UC3, cv::Scalar::all(90))),
      t.write("text.png", {'n', 'o', 't'}),
      t.write("big.png", png_bytes(10, 32)),  // over max_pixels below
      t.path() + "/missing.png",
  };
  std::vector<uint8_t> padded = png_bytes(10, 4);
  padded.resize(5000);  // over max_bytes below
  paths.push_back(t.write("padded.png", padded));
  ImageLimits limits;
  limits.max_pixels = 600;
  limits.max_bytes = 4000;
  EXPECT_EQ(image_cache_bytes(paths, limits),
            ImageCache::entry_bytes(4, 4) + ImageCache::entry_bytes(20, 30));
  EXPECT_EQ(image_cache_bytes({}, limits), 0u);
}

TEST(ImageCacheSize, FindsAJpegFrameHeaderAfterLongMetadata) {
  TempFolder t;
  std::vector<uint8_t> jpeg;
  ASSERT_TRUE(cv::imencode(".jpg", cv::Mat(24, 40, CV_8UC3, cv::Scalar::all(60)), jpeg));
  // Two comment segments of the largest size after SOI push the frame header past 128 KB.
  std::vector<uint8_t> comment = {0xFF, 0xFE, 0xFF, 0xFF};
  comment.resize(2 + 0xFFFF, 'c');
  for (int i = 0; i < 2; ++i) jpeg.insert(jpeg.begin() + 2, comment.begin(), comment.end());
  const std::string path = t.write("long.jpg", jpeg);
  EXPECT_EQ(image_cache_bytes({path}, ImageLimits{}), ImageCache::entry_bytes(40, 24));
}

}  // namespace
}  // namespace xtrain
