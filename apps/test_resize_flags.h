// The test images' Resize before their center crop, as train and predict both take it
// (torchvision's --val-resize-size and --interpolation): the shorter side resized to
// --val_resize_size with PIL's resampling. predict scores a checkpoint with the transform its run
// was tested with only when it is given the same two.
// Not here: the crop's size (each tool's own flag), the pixel work (data/resize_image.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "data/transforms.h"

namespace xtrain {

struct TestResizeFlags {
  CLI::Option* resize_side = nullptr;
  std::string interpolation = "bilinear";
  std::string crop_flag;  // the tool's flag for the crop's side, for messages
};

// Adds --val_resize_size (into resampling.test_resize_side) and --interpolation; `crop_flag`
// names the tool's crop side flag, `interpolation_use` says what the interpolation resamples.
TestResizeFlags add_test_resize_flags(CLI::App& app, Resampling& resampling,
                                      const std::string& crop_flag,
                                      const std::string& interpolation_use);

// After parsing: resampling takes the interpolation. Returns the one-line problem with the resize
// for this recipe and crop side, or "".
std::string apply_test_resize_flags(const TestResizeFlags& flags, const std::string& augment,
                                    int crop_side, Resampling& resampling);

}  // namespace xtrain
