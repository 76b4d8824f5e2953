#include "data/batch_ring.h"

#include <algorithm>

#include "lib/base/check.h"

namespace xtrain {

BatchRing::BatchRing(int num_slots, int batch_size, int64_t image_bytes)
    : num_slots_(num_slots),
      batch_size_(batch_size),
      image_bytes_(image_bytes),
      labels_(num_slots, std::vector<int32_t>(batch_size)),
      erase_(num_slots, std::vector<EraseBox>(batch_size)),
      slot_batch_(num_slots, -1),
      slot_missing_(num_slots, 0) {
  XTRAIN_CHECK(num_slots >= 1 && batch_size >= 1 && image_bytes >= 1,
               "BatchRing: {} slots of {} images of {} bytes", num_slots, batch_size, image_bytes);
  for (int s = 0; s < num_slots; ++s) images_.emplace_back(size_t(batch_size) * image_bytes);
}

size_t BatchRing::image_buffer_bytes_for(int num_slots, int batch_size, int64_t image_bytes) {
  return size_t(num_slots) * batch_size * image_bytes;
}

size_t BatchRing::image_buffer_bytes() const {
  size_t bytes = 0;
  for (const std::vector<uint8_t>& images : images_) bytes += images.size();
  return bytes;
}

int BatchRing::batch_size_of(int64_t batch) const {
  return static_cast<int>(std::min<int64_t>(batch_size_, num_samples_ - batch * batch_size_));
}

bool BatchRing::stop() {
  std::unique_lock<std::mutex> lock(mutex_);
  accepting_ = false;
  idle_.wait(lock, [this] { return closed_ || writing_ == 0; });
  return !closed_;
}

void BatchRing::start(int64_t num_samples) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    XTRAIN_CHECK(writing_ == 0, "BatchRing::start without stop()");
    num_samples_ = num_samples;
    next_position_ = 0;
    taken_ = 0;
    std::fill(slot_batch_.begin(), slot_batch_.end(), -1);
    error_ = nullptr;
    accepting_ = true;
  }
  work_.notify_all();
}

bool BatchRing::claim(Claim* claim) {
  std::unique_lock<std::mutex> lock(mutex_);
  work_.wait(lock, [this] {
    return closed_ || (accepting_ && next_position_ < num_samples_ &&
                       batch_of(next_position_) < taken_ + num_slots_);
  });
  if (closed_) return false;
  const int64_t position = next_position_++;
  const int64_t batch = batch_of(position);
  const int slot = static_cast<int>(batch % num_slots_);
  const int row = static_cast<int>(position % batch_size_);
  if (row == 0) {  // the batch's first sample: it takes over the slot
    slot_batch_[slot] = batch;
    slot_missing_[slot] = batch_size_of(batch);
  }
  ++writing_;
  claim->position = position;
  claim->image = images_[slot].data() + row * image_bytes_;
  claim->label = &labels_[slot][row];
  claim->erase = &erase_[slot][row];
  return true;
}

void BatchRing::finish(const Claim& claim, std::exception_ptr error) {
  std::lock_guard<std::mutex> lock(mutex_);
  const int slot = static_cast<int>(batch_of(claim.position) % num_slots_);
  if (error && !error_) error_ = error;
  if (--slot_missing_[slot] == 0 || error) ready_.notify_one();
  if (--writing_ == 0) idle_.notify_all();
}

int BatchRing::next(const Take& take) {
  std::unique_lock<std::mutex> lock(mutex_);
  const int64_t batch = taken_;
  const int slot = static_cast<int>(batch % num_slots_);
  ready_.wait(lock, [&] {
    return closed_ || error_ || batch * batch_size_ >= num_samples_ ||
           (slot_batch_[slot] == batch && slot_missing_[slot] == 0);
  });
  if (error_) std::rethrow_exception(error_);
  if (closed_ || batch * batch_size_ >= num_samples_) return 0;
  lock.unlock();
  // No worker writes this slot until taken_ moves past it, so reading it needs no lock.
  const int n = batch_size_of(batch);
  take(images_[slot].data(), labels_[slot].data(), erase_[slot].data(), n);
  lock.lock();
  ++taken_;
  lock.unlock();
  work_.notify_all();
  return n;
}

void BatchRing::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  work_.notify_all();
  ready_.notify_all();
  idle_.notify_all();
}

}  // namespace xtrain
