// NoiseSamples: the samples of --fake_images=noise, a fixed set of kCount images of standard
// normal pixels (as torch.randn: already normalized, so no mean and std apply) with labels
// uniform over the classes. Sample k is drawn from (seed, k) alone, so every core, process and
// run holding the set holds the same samples; a data set index i reads sample i mod kCount, so a
// step costs a copy, as the all-zero images do, and no drawing. Built once per image side and
// shared, read-only, by every core's FakeData.
// Not here: which indices a core reads (fake_data.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace xtrain {

class NoiseSamples {
 public:
  // Distinct samples: enough that a batch's BatchNorm statistics come from many images, few
  // enough that drawing them once stays short beside a run.
  static constexpr int kCount = 64;

  // Images [image_size, image_size, 3], labels in [0, num_classes).
  NoiseSamples(int image_size, int num_classes, uint64_t seed);

  int image_size() const { return image_size_; }
  int64_t image_elements() const { return image_elements_; }
  // The image and label of data set index `index` (>= 0): sample index mod kCount.
  const float* image(int64_t index) const {
    return pixels_.data() + index % kCount * image_elements_;
  }
  int32_t label(int64_t index) const { return labels_[index % kCount]; }

  // The bytes a set of this image side holds (the memory plan counts them).
  static size_t bytes_for(int image_size);

 private:
  int image_size_;
  int64_t image_elements_;
  std::vector<float> pixels_;  // [kCount, image_size, image_size, 3]
  std::vector<int32_t> labels_;
};

}  // namespace xtrain
