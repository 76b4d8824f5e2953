// FakeData: the --fake_data input of test_train_imagenet.py, which measures a machine without a
// data set: every image is zeros and every label 0 (so a model learns to answer 0 and the test
// accuracy reaches 100%). With --fake_images=noise the images are standard normals and the labels
// random instead (noise_samples.h), which BatchNorm-heavy models need: on all-zero images their
// statistics degenerate. Each batch is still written into the trainer's input, as real data is,
// already normalized.
// Not here: drawing the noise samples (noise_samples.h).
#pragma once

#include <atomic>
#include <memory>

#include "data/batch_source.h"
#include "data/noise_samples.h"

namespace xtrain {

class FakeData : public BatchSource {
 public:
  // Full batches of `batch_size` images [image_size, image_size, 3]: all zeros labelled 0, or,
  // given `noise` (of that image size), its samples for core `rank` of `num_replicas`: slot j of
  // its batch b holds data set index rank + num_replicas * (b * batch_size + j), as
  // DistributedSampler deals out a set it does not shuffle, so what a core reads does not depend
  // on its worker threads and an index's sample not on the cores. Every epoch reads the same
  // indices: the XLA script's fake data is the same in every step too.
  FakeData(int64_t batches_per_epoch, int batch_size, int image_size,
           std::shared_ptr<const NoiseSamples> noise = nullptr, int rank = 0, int num_replicas = 1);

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
  std::shared_ptr<const NoiseSamples> noise_;  // null: all-zero images labelled 0
  int rank_ = 0;
  int num_replicas_ = 1;
  int64_t next_batch_ = 0;
  std::atomic<bool> closed_{false};
};

}  // namespace xtrain
