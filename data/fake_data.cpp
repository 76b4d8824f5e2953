#include "data/fake_data.h"

#include <algorithm>
#include <utility>

#include "lib/base/check.h"

namespace xtrain {

FakeData::FakeData(int64_t batches_per_epoch, int batch_size, int image_size,
                   std::shared_ptr<const NoiseSamples> noise, int rank, int num_replicas)
    : batches_per_epoch_(batches_per_epoch),
      batch_size_(batch_size),
      image_elements_(int64_t{image_size} * image_size * 3),
      noise_(std::move(noise)),
      rank_(rank),
      num_replicas_(num_replicas) {
  XTRAIN_CHECK(rank >= 0 && rank < num_replicas, "FakeData: rank {} of {} replicas", rank,
               num_replicas);
  XTRAIN_CHECK(noise_ == nullptr || noise_->image_size() == image_size,
               "FakeData: noise samples of side {} for images of side {}", noise_->image_size(),
               image_size);
}

int FakeData::next(Elements images, int32_t* labels) {
  if (closed_ || next_batch_ >= batches_per_epoch_) return 0;
  const int64_t batch = next_batch_++;
  if (noise_ == nullptr) {
    // Zero has the same bits in both types.
    std::fill_n(images.f32(), floats_for(batch_size_ * image_elements_, images.type), 0.0f);
    std::fill_n(labels, batch_size_, 0);
    return batch_size_;
  }
  for (int j = 0; j < batch_size_; ++j) {
    const int64_t index = rank_ + int64_t{num_replicas_} * (batch * batch_size_ + j);
    write_floats(noise_->image(index), image_elements_, images.at(j * image_elements_));
    labels[j] = noise_->label(index);
  }
  return batch_size_;
}

int64_t FakeData::train_batches(int batch_size, int num_cores) {
  return 1200000 / (int64_t{batch_size} * num_cores);
}

int64_t FakeData::test_batches(int batch_size, int num_cores) {
  return 50000 / batch_size / num_cores;
}

}  // namespace xtrain
