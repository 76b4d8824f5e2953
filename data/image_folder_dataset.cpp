#include "data/image_folder_dataset.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "data/decode_image.h"
#include "lib/base/escape.h"

namespace xtrain {
namespace {

constexpr int kChannels = 3;

// Reads the whole file; false with *problem set when it cannot.
bool read_file(const std::string& path, std::vector<uint8_t>* bytes, std::string* problem) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file) {
    *problem = std::strerror(errno);
    return false;
  }
  bytes->clear();
  uint8_t chunk[1 << 16];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), file.get())) > 0) {
    bytes->insert(bytes->end(), chunk, chunk + n);
  }
  if (std::ferror(file.get())) {
    *problem = std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace

ImageFolderDataset::ImageFolderDataset(ImageFolder folder, Transform transform, int image_size)
    : folder_(std::move(folder)),
      transform_(std::move(transform)),
      image_floats_(int64_t{image_size} * image_size * kChannels) {
  // Decoding runs on the loader's worker threads; OpenCV must not start a thread pool of its own.
  cv::setNumThreads(0);
}

void ImageFolderDataset::get(int64_t index, Rng& rng, float* image, int32_t* label) const {
  const std::string& path = folder_.paths[index];
  std::vector<uint8_t> bytes;
  std::string problem;
  cv::Mat rgb;
  if (read_file(path, &bytes, &problem)) rgb = decode_image(bytes, &problem);
  if (rgb.empty())
    throw UnreadableImage(fmt::format("{}: {}", escape_control_characters(path), problem),
                          fmt::format("{}:{}", __FILE__, __LINE__));
  transform_(rgb, rng, image);
  *label = folder_.labels[index];
}

}  // namespace xtrain
