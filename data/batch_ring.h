// BatchRing: the preallocated batch buffers of one loader and who may write where. Worker threads
// claim the samples of an epoch one at a time, in order, and write each straight into its slot
// of its batch's buffer; the consumer takes whole batches in order. A worker may claim a sample
// only while its batch is among the next num_slots batches not yet taken, which bounds the
// prefetch; since claims are per sample, a slow sample delays only its own batch, never the
// other workers. close() wakes every waiting thread, for good.
// Not here: what a sample is (Loader), the threads (WorkerThreads).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <vector>

#include "data/random_erasing.h"

namespace xtrain {

class BatchRing {
 public:
  BatchRing(int num_slots, int batch_size, int64_t image_bytes);
  // The image_buffer_bytes() of such a ring, without allocating it. Its labels and boxes to
  // erase, a few bytes an image, are left out of the count.
  static size_t image_buffer_bytes_for(int num_slots, int batch_size, int64_t image_bytes);
  size_t image_buffer_bytes() const;  // its images' buffers, as allocated

  // A sample for a worker to write: its position in the epoch and where its image, label and
  // box to erase go.
  struct Claim {
    int64_t position = 0;
    uint8_t* image = nullptr;
    int32_t* label = nullptr;
    EraseBox* erase = nullptr;
  };

  // Consumer: stops handing out samples and waits until no claimed sample is still being
  // written, so the caller may change what samples mean; returns true. Then start() begins an
  // epoch of `num_samples` samples (batches of batch_size, the last possibly partial).
  // A closed ring returns false at once, without waiting for a worker stuck in a read (a stop
  // must not wait for a slow file): the caller must then leave samples and start() alone.
  bool stop();
  void start(int64_t num_samples);

  // Worker: waits for a sample to write and returns true; false once closed.
  bool claim(Claim* claim);
  // Worker: the claimed sample is written, or failed with `error` (rethrown by next()).
  void finish(const Claim& claim, std::exception_ptr error = nullptr);

  // Consumer: waits for the next batch of the epoch, hands its n images (n * image_bytes bytes),
  // n labels and n boxes to erase to `take`, which no worker writes meanwhile, and returns n; 0
  // once the epoch is over or the ring is closed.
  using Take = std::function<void(const uint8_t* images, const int32_t* labels,
                                  const EraseBox* erase, int n)>;
  int next(const Take& take);

  // Any thread: wakes every waiting thread; claim() and next() return false/0 from now on.
  void close();

 private:
  int64_t batch_of(int64_t position) const { return position / batch_size_; }
  int batch_size_of(int64_t batch) const;

  const int num_slots_;
  const int batch_size_;
  const int64_t image_bytes_;
  std::vector<std::vector<uint8_t>> images_;  // [num_slots] of [batch_size, image_bytes]
  std::vector<std::vector<int32_t>> labels_;  // [num_slots] of [batch_size]
  std::vector<std::vector<EraseBox>> erase_;  // [num_slots] of [batch_size]

  std::mutex mutex_;
  std::condition_variable work_;   // workers: a sample can be claimed
  std::condition_variable ready_;  // consumer: a batch is complete
  std::condition_variable idle_;   // stop(): no sample is being written
  int64_t num_samples_ = 0;
  int64_t next_position_ = 0;        // the next sample to hand out
  int64_t taken_ = 0;                // batches taken by the consumer
  int64_t writing_ = 0;              // claimed samples not finished yet
  std::vector<int64_t> slot_batch_;  // batch each slot holds (-1: none)
  std::vector<int> slot_missing_;    // samples of that batch not finished yet
  bool accepting_ = false;
  bool closed_ = false;
  std::exception_ptr error_;
};

}  // namespace xtrain
