// ImageCache: --cache_dataset's decoded images (8-bit RGB as decode_image gives them, before any
// transform) kept in memory by sample index, so a data set is decoded once per process and later
// epochs and test passes transform the kept pixels instead. One cache per data set, shared by
// every core's loader workers: a read takes no lock, and when two threads decode the same image
// at once the first to store it wins and the other's copy is dropped (its pixels are the same).
// It never holds more than the bytes it was sized for: an image beyond them is not kept, and is
// decoded each time it is read.
// Not here: decoding (decode_image.h), the size from the images' headers (image_cache_size.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <opencv2/core.hpp>

namespace xtrain {

class ImageCache {
 public:
  // The bytes one width x height image takes in the cache, the allocator's share included.
  static size_t entry_bytes(int64_t width, int64_t height);

  // Slots for num_images images, holding at most image_bytes of their entry_bytes.
  ImageCache(int64_t num_images, size_t image_bytes);
  ~ImageCache();
  ImageCache(const ImageCache&) = delete;
  ImageCache& operator=(const ImageCache&) = delete;

  // What the cache may take: its slots and image_bytes.
  size_t bytes() const;
  // The images' bytes stored so far.
  size_t stored_bytes() const { return stored_bytes_.load(std::memory_order_relaxed); }

  // Image `index` as stored: a view of the cache's pixels, valid as long as the cache, that the
  // caller only reads; empty when it is not stored.
  cv::Mat find(int64_t index) const;
  // Keeps a copy of `rgb` (8-bit, 3 channels) as image `index`, unless one is kept already or it
  // would take the cache over its bytes.
  void store(int64_t index, const cv::Mat& rgb);

 private:
  struct Entry;
  // Takes `bytes` of the images' allowance; false, taking nothing, when they are not left.
  bool reserve(size_t bytes);

  int64_t num_images_;
  size_t image_bytes_;
  std::unique_ptr<std::atomic<const Entry*>[]> slots_;
  std::atomic<size_t> stored_bytes_{0};
};

}  // namespace xtrain
