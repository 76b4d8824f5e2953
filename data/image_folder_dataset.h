// ImageFolderDataset: the Dataset of an ImageFolder: a sample is its file read, decoded to RGB
// and transformed; its label is its class index. A file that is not a regular file, is over the
// ImageLimits or cannot be read or decoded is an UnreadableImage naming it (control characters
// escaped, so the message stays one line).
// Not here: finding the files (image_folder.h), reading (read_image_file.h), the pixel work
// (decode_image.h, transforms.h).
#pragma once

#include "data/dataset.h"
#include "data/image_folder.h"
#include "data/image_limits.h"
#include "data/transforms.h"

namespace xtrain {

class ImageFolderDataset : public Dataset {
 public:
  // `transform` writes image_size x image_size x 3 bytes.
  ImageFolderDataset(ImageFolder folder, Transform transform, int image_size,
                     const ImageLimits& limits);

  int64_t size() const override { return static_cast<int64_t>(folder_.paths.size()); }
  int64_t image_bytes() const override { return image_bytes_; }
  EraseBox get(int64_t index, Rng& rng, uint8_t* image, int32_t* label) const override;

 private:
  ImageFolder folder_;
  Transform transform_;
  int64_t image_bytes_;
  ImageLimits limits_;
};

}  // namespace xtrain
