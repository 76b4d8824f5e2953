// The predict tool's flags. Parsing reports bad input as one line naming the flag.
#pragma once

#include <string>
#include <vector>

#include "data/image_limits.h"
#include "data/transforms.h"

namespace xtrain {

struct PredictFlags {
  std::string checkpoint;  // a safetensors file (train's --logdir checkpoints, or torchvision's)
  std::string model;
  int num_classes = 0;  // 0: the checkpoint's (the length of its fc.bias)
  int image_size = 224;
  int top_k = 5;
  std::string augment = "imagenet";  // the training recipe, whose test transform predict uses
  Resampling resampling;             // the test transform's Resize: its side and interpolation
  std::string classes;               // a data set folder naming the classes; empty: indices only
  int batch_size = 16;
  ImageLimits image_limits;        // larger image files are skipped as unreadable
  std::vector<std::string> paths;  // image files and folders
};

// Parses argv. Returns false when the process should exit with *exit_code straight away
// (--help, or an error already printed as one line).
bool parse_predict_flags(int argc, char** argv, PredictFlags* flags, int* exit_code);

}  // namespace xtrain
