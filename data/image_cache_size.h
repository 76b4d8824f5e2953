// image_cache_size: the bytes an ImageCache of a data set's images takes once every image is in
// it, from each file's header (image_header.h), read before any image is decoded so the memory
// plan can count the cache. A file that will not decode (unreadable, over the ImageLimits, no
// image header) counts nothing: it is never stored.
// Not here: the cache (image_cache.h), decoding (decode_image.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "data/image_limits.h"

namespace xtrain {

// The sum of ImageCache::entry_bytes over the images at `paths` that declare a size within
// `limits`.
size_t image_cache_bytes(const std::vector<std::string>& paths, const ImageLimits& limits);

}  // namespace xtrain
