// ImageLimits: the largest image file a data set reads (--max_image_bytes) and the most pixels it
// decodes (--max_image_pixels); larger files are skipped as unreadable before they cost memory.
#pragma once

#include <cstdint>

namespace xtrain {

struct ImageLimits {
  int64_t max_bytes = int64_t{64} * 1024 * 1024;
  // 2 x PIL's Image.MAX_IMAGE_PIXELS: where PIL raises DecompressionBombError.
  int64_t max_pixels = 178956970;
};

}  // namespace xtrain
