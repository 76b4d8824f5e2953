#include "apps/predict_flags.h"

#include <CLI/CLI.hpp>

#include "apps/flag_checks.h"
#include "apps/test_resize_flags.h"
#include "models/registry.h"

namespace xtrain {

bool parse_predict_flags(int argc, char** argv, PredictFlags* flags, int* exit_code) {
  PredictFlags& f = *flags;
  CLI::App app{"xtrain: classify images with a checkpoint, one JSON object per image", "predict"};
  use_argparse_conventions(app);

  app.add_option("--checkpoint", f.checkpoint, "Weights: a .safetensors file")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--model", f.model, "Architecture of the checkpoint")
      ->required()
      ->check(one_of(model_names()));
  app.add_option("--num_classes", f.num_classes, "Classifier outputs (default: the checkpoint's)")
      ->transform(integer_in(1, kMaxClasses));
  CLI::Option* image_size =
      app.add_option("--image_size", f.image_size,
                     "Network input side: images are resized to --val_resize_size (shorter side) "
                     "and center-cropped to it (default: 299 for inception_v3, the crop size of "
                     "torchvision's weights for the EfficientNets, 224 for the others)")
          ->transform(integer_in(1, kMaxImageSize));
  const TestResizeFlags test_resize =
      add_test_resize_flags(app, f.resampling, "--image_size", "the images' Resize");
  app.add_option("--augment", f.augment,
                 "The checkpoint's training recipe, whose test transform is used: imagenet "
                 "(resize and center crop) or cifar (images already image_size square are only "
                 "normalized)")
      ->check(one_of({"imagenet", "cifar"}));
  app.add_option("--top_k", f.top_k, "Classes reported per image (at most --num_classes)")
      ->transform(integer_in(1, kMaxClasses));
  app.add_option("--classes", f.classes,
                 "Data set folder whose sorted sub-folders (of DIR/train if it exists) name the "
                 "classes")
      ->check(CLI::ExistingDirectory);
  app.add_option("--batch_size", f.batch_size, "Images per forward pass")
      ->transform(integer_in(1, kMaxBatchSize));
  app.add_option("--max_image_bytes", f.image_limits.max_bytes,
                 "Skip (as unreadable) image files larger than this many bytes")
      ->transform(integer_in(1, kMaxInt64));
  app.add_option("--max_image_pixels", f.image_limits.max_pixels,
                 "Skip (as unreadable) images whose header declares more pixels than this, "
                 "before decoding them")
      ->transform(integer_in(1, kMaxInt64));
  app.add_option("paths", f.paths, "Image files and folders (searched recursively)")
      ->required()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);

  if (!parse_flags(app, argc, argv, exit_code)) return false;
  if (image_size->count() == 0) f.image_size = default_image_size(f.model);
  const std::string resize_problem =
      apply_test_resize_flags(test_resize, f.augment, f.image_size, f.resampling);
  if (!resize_problem.empty()) {
    report_flag_error(app, resize_problem, exit_code);
    return false;
  }
  return true;
}

}  // namespace xtrain
