// The train driver's flags: names and defaults of test_train_imagenet.py (and torch_xla's
// args_parse), plus xtrain's additions. Parsing reports bad input as one line naming the flag.
#pragma once

#include <string>

#include "data/image_folder_source.h"
#include "lib/train/trainer.h"

namespace xtrain {

struct TrainFlags {
  std::string model = "resnet50";
  bool fake_data = false;
  std::string fake_images = "zeros";  // --fake_images: zeros or noise (with --fake_data)
  ImageFolderOptions data;            // --datadir and the loader's flags
  int num_classes = 0;                // 0: the number of classes found (1000 with --fake_data)
  float target_accuracy = 0.0f;
  std::string resume;      // --resume: a checkpoint, or "auto" for --logdir's latest
  std::string pretrained;  // --pretrained: weights to start from
  bool evaluate = false;   // --evaluate: test only
  // --num_cores given: it must fit in memory; otherwise trainer.num_cores (the hardware threads)
  // is the most to use, fewer when they do not fit.
  bool num_cores_given = false;
  // Which flag set trainer.image_size and trainer.test_image_size (else --image_size did), for
  // errors that name it.
  bool train_crop_size_given = false;
  bool val_crop_size_given = false;
  TrainerOptions trainer;
};

// Parses argv. Returns false when the process should exit with *exit_code straight away
// (--help, or an error already printed as one line).
bool parse_train_flags(int argc, char** argv, TrainFlags* flags, int* exit_code);

}  // namespace xtrain
