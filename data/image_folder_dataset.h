// ImageFolderDataset: the Dataset of an ImageFolder: a sample is its file read, decoded to RGB
// and transformed; its label is its class index. An unreadable file is an UnreadableImage naming
// it (control characters escaped, so the message stays one line).
// Not here: finding the files (image_folder.h), the pixel work (decode_image.h, transforms.h).
#pragma once

#include "data/dataset.h"
#include "data/image_folder.h"
#include "data/transforms.h"

namespace xtrain {

class ImageFolderDataset : public Dataset {
 public:
  // `transform` writes image_size x image_size x 3 floats.
  ImageFolderDataset(ImageFolder folder, Transform transform, int image_size);

  int64_t size() const override { return static_cast<int64_t>(folder_.paths.size()); }
  int64_t image_floats() const override { return image_floats_; }
  void get(int64_t index, Rng& rng, float* image, int32_t* label) const override;

  const ImageFolder& folder() const { return folder_; }

 private:
  ImageFolder folder_;
  Transform transform_;
  int64_t image_floats_;
};

}  // namespace xtrain
