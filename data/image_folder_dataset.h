// ImageFolderDataset: the Dataset of an ImageFolder: a sample is its file read, decoded to RGB
// and transformed; its label is its class index. A file that is not a regular file, is over the
// ImageLimits or cannot be read or decoded is an UnreadableImage naming it (control characters
// escaped, so the message stays one line). Given an ImageCache (--cache_dataset), an image is
// decoded the first time it is read and transformed from the cache's pixels after that: the
// transform draws and gives the same either way.
// Not here: finding the files (image_folder.h), reading (read_image_file.h), the pixel work
// (decode_image.h, transforms.h).
#pragma once

#include <memory>

#include "data/dataset.h"
#include "data/image_cache.h"
#include "data/image_folder.h"
#include "data/image_limits.h"
#include "data/transforms.h"

namespace xtrain {

class ImageFolderDataset : public Dataset {
 public:
  // `transform` writes image_size x image_size x 3 bytes. `cache`, when given, holds the
  // folder's images by index.
  ImageFolderDataset(ImageFolder folder, Transform transform, int image_size,
                     const ImageLimits& limits, std::shared_ptr<ImageCache> cache = nullptr);

  int64_t size() const override { return static_cast<int64_t>(folder_.paths.size()); }
  int64_t image_bytes() const override { return image_bytes_; }
  EraseBox get(int64_t index, Rng& rng, uint8_t* image, int32_t* label) const override;

 private:
  // Image `index` read and decoded to RGB; throws UnreadableImage.
  cv::Mat decode(int64_t index) const;

  ImageFolder folder_;
  Transform transform_;
  int64_t image_bytes_;
  ImageLimits limits_;
  std::shared_ptr<ImageCache> cache_;  // null: every read decodes
};

}  // namespace xtrain
