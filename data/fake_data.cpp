#include "data/fake_data.h"

#include <algorithm>

namespace xtrain {

FakeData::FakeData(int64_t batches_per_epoch, int batch_size, int image_size)
    : batches_per_epoch_(batches_per_epoch),
      batch_size_(batch_size),
      image_elements_(int64_t{image_size} * image_size * 3) {}

int FakeData::next(Elements images, int32_t* labels) {
  if (closed_ || next_batch_ >= batches_per_epoch_) return 0;
  ++next_batch_;
  // Zero has the same bits in both types.
  std::fill_n(images.f32(), floats_for(batch_size_ * image_elements_, images.type), 0.0f);
  std::fill_n(labels, batch_size_, 0);
  return batch_size_;
}

int64_t FakeData::train_batches(int batch_size, int num_cores) {
  return 1200000 / (int64_t{batch_size} * num_cores);
}

int64_t FakeData::test_batches(int batch_size, int num_cores) {
  return 50000 / batch_size / num_cores;
}

}  // namespace xtrain
