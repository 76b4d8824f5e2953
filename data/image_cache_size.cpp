#include "data/image_cache_size.h"

#include <cstdint>

#include "data/image_cache.h"
#include "data/image_header.h"
#include "data/read_image_file.h"

namespace xtrain {
namespace {

// Most formats declare their size in the first bytes. A JPEG's frame header may come after
// metadata segments of any length: one cut short in these bytes is read from the whole file.
constexpr size_t kHeadBytes = size_t{64} << 10;

// The size the file at `path` declares, if it will be decoded.
bool declared_size(const std::string& path, const ImageLimits& limits, ImageSize* size) {
  std::vector<uint8_t> bytes;
  std::string problem;
  if (!read_image_head(path, limits.max_bytes, kHeadBytes, &bytes, &problem)) return false;
  if (!read_image_size(bytes, size, &problem)) {
    if (bytes.size() < kHeadBytes) return false;
    if (!read_image_file(path, limits.max_bytes, &bytes, &problem)) return false;
    if (!read_image_size(bytes, size, &problem)) return false;
  }
  return size->width <= limits.max_pixels / size->height;  // as decode_image refuses it
}

}  // namespace

size_t image_cache_bytes(const std::vector<std::string>& paths, const ImageLimits& limits) {
  size_t bytes = 0;
  for (const std::string& path : paths) {
    ImageSize size;
    if (declared_size(path, limits, &size))
      bytes += ImageCache::entry_bytes(size.width, size.height);
  }
  return bytes;
}

}  // namespace xtrain
