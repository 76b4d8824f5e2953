// FakeData: the --fake_data input of test_train_imagenet.py, which measures a machine without a
// data set: every image is zeros and every label 0 (so a model learns to answer 0 and the test
// accuracy reaches 100%). Each batch is still written into the trainer's input, as real data is.
#pragma once

#include <atomic>

#include "data/batch_source.h"

namespace xtrain {

class FakeData : public BatchSource {
 public:
  // Full batches of `batch_size` images [image_size, image_size, 3].
  FakeData(int64_t batches_per_epoch, int batch_size, int image_size);

  int64_t batches_per_epoch() const override { return batches_per_epoch_; }
  void start_epoch(int epoch) override { next_batch_ = 0; }
  int next(Elements images, int32_t* labels) override;
  void close() override { closed_ = true; }

  // The XLA script's sizes: ImageNet's 1,200,000 training and 50,000 test images, split over
  // the cores in batches. The test count divides by the *training* batch size, as the script does.
  static int64_t train_batches(int batch_size, int num_cores);
  static int64_t test_batches(int batch_size, int num_cores);

 private:
  int64_t batches_per_epoch_;
  int batch_size_;
  int64_t image_elements_;
  int64_t next_batch_ = 0;
  std::atomic<bool> closed_{false};
};

}  // namespace xtrain
