#include "apps/test_resize_flags.h"

#include <fmt/format.h>

#include "apps/flag_checks.h"
#include "data/resize_image.h"

namespace xtrain {

TestResizeFlags add_test_resize_flags(CLI::App& app, Resampling& resampling,
                                      const std::string& crop_flag,
                                      const std::string& interpolation_use) {
  TestResizeFlags flags;
  flags.crop_flag = crop_flag;
  flags.resize_side =
      app.add_option("--val_resize_size", resampling.test_resize_side,
                     "Shorter side test images are resized to before the center crop, at least " +
                         crop_flag + " (default: round(crop side / 0.875))")
          ->transform(integer_in(1, kMaxImageSize));
  app.add_option("--interpolation", flags.interpolation,
                 "Resampling of " + interpolation_use + ", as PIL's: nearest, bilinear or bicubic")
      ->check(one_of({"nearest", "bilinear", "bicubic"}));
  return flags;
}

std::string apply_test_resize_flags(const TestResizeFlags& flags, const std::string& augment,
                                    int crop_side, Resampling& resampling) {
  resampling.interpolation = interpolation_from_name(flags.interpolation);
  if (flags.resize_side->count() == 0) return "";
  // The cifar recipe's test images are only normalized, or squared to their side.
  if (augment != "imagenet") return "--val_resize_size needs --augment=imagenet";
  // torchvision's CenterCrop would pad the resized image with zeros to fit the crop.
  if (resampling.test_resize_side < crop_side) {
    return fmt::format("--val_resize_size={} is smaller than {}={}: the center crop would not fit",
                       resampling.test_resize_side, flags.crop_flag, crop_side);
  }
  return "";
}

}  // namespace xtrain
