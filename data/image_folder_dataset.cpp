#include "data/image_folder_dataset.h"

#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "data/decode_image.h"
#include "data/read_image_file.h"

namespace xtrain {
namespace {

constexpr int kChannels = 3;

}  // namespace

ImageFolderDataset::ImageFolderDataset(ImageFolder folder, Transform transform, int image_size,
                                       const ImageLimits& limits, std::shared_ptr<ImageCache> cache)
    : folder_(std::move(folder)),
      transform_(std::move(transform)),
      image_bytes_(int64_t{image_size} * image_size * kChannels),
      limits_(limits),
      cache_(std::move(cache)) {
  // Decoding runs on the loader's worker threads; OpenCV must not start a thread pool of its own.
  cv::setNumThreads(0);
}

EraseBox ImageFolderDataset::get(int64_t index, Rng& rng, uint8_t* image, int32_t* label) const {
  cv::Mat rgb = cache_ ? cache_->find(index) : cv::Mat();
  if (rgb.empty()) {
    rgb = decode(index);
    if (cache_) cache_->store(index, rgb);
  }
  *label = folder_.labels[index];
  return transform_(rgb, rng, image);
}

cv::Mat ImageFolderDataset::decode(int64_t index) const {
  const std::string& path = folder_.paths[index];
  std::vector<uint8_t> bytes;
  std::string problem;
  cv::Mat rgb;
  if (read_image_file(path, limits_.max_bytes, &bytes, &problem)) {
    rgb = decode_image(bytes, limits_.max_pixels, &problem);
  }
  if (rgb.empty()) {
    throw UnreadableImage(fmt::format("{}: {}", path, problem),
                          fmt::format("{}:{}", __FILE__, __LINE__));
  }
  return rgb;
}

}  // namespace xtrain
