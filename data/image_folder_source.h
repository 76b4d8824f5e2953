// image_folder_source: --datadir as the driver's data: DIR/train and DIR/val scanned as
// ImageFolders (the val classes must be the train classes), and the factories of each core's
// training and test Loader over them. Layout errors are thrown here, before any training.
// Not here: the flags (apps/train_flags.cpp), the loading itself (Loader).
#pragma once

#include <cstdint>
#include <string>

#include "data/batch_source.h"
#include "data/image_limits.h"
#include "data/loader.h"
#include "data/transforms.h"

namespace xtrain {

struct ImageFolderOptions {
  std::string datadir;
  std::string augment = "imagenet";  // or "cifar": the transforms.h recipes
  TrainExtras train_extras;          // --auto_augment, --random_erase
  Resampling resampling;             // --interpolation, --val_resize_size
  int test_image_size = 0;           // --val_crop_size: the test images' side; 0: image_size
  bool drop_last = false;            // training: drop the tail that does not fill every core
  int ra_reps = 0;                   // --ra_sampler's repetitions (DistributedSampler); 0: off
  ImageLimits image_limits;          // larger files are skipped as unreadable
  bool cache_dataset = false;        // --cache_dataset: decoded images kept (image_cache.h)
  LoaderOptions loader;              // batch_size is set per split
};

struct ImageFolderSources {
  BatchSourceFactory train;
  BatchSourceFactory test;
  // For the memory plan.
  PartialBatchSize partial_train_batch, partial_test_batch;
  SourceMemoryFor train_memory, test_memory;
  // --cache_dataset: what each split's ImageCache takes in the process (0 without).
  size_t train_cache_bytes = 0, test_cache_bytes = 0;
  int num_classes = 0;
};

// Scans DIR/train and DIR/val and returns their sources, whose training images are image_size
// square; throws xtrain::Error on a bad layout. Under cache_dataset each split's loaders share
// one ImageCache, sized from its images' headers.
ImageFolderSources open_image_folders(const ImageFolderOptions& options, int image_size,
                                      int train_batch_size, int test_batch_size, uint64_t seed);

}  // namespace xtrain
