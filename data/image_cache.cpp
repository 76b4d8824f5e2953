#include "data/image_cache.h"

#include "lib/base/check.h"

namespace xtrain {
namespace {

// glibc's malloc adds a header to each block and rounds it to 16 bytes; a block this large may
// be mapped on its own, in whole pages.
constexpr size_t kMallocHeader = 16;
constexpr size_t kMappedBlock = size_t{128} << 10;
constexpr size_t kPage = 4096;

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// What malloc takes for a block of n bytes.
size_t allocated(size_t n) {
  return round_up(n + kMallocHeader, n >= kMappedBlock ? kPage : kMallocHeader);
}

}  // namespace

struct ImageCache::Entry {
  int rows = 0;
  int cols = 0;
  std::unique_ptr<uint8_t[]> pixels;  // [rows, cols, 3]
};

size_t ImageCache::entry_bytes(int64_t width, int64_t height) {
  return allocated(sizeof(Entry)) +
         allocated(size_t(width) * size_t(height) * CV_ELEM_SIZE(CV_8UC3));
}

ImageCache::ImageCache(int64_t num_images, size_t image_bytes)
    : num_images_(num_images),
      image_bytes_(image_bytes),
      slots_(new std::atomic<const Entry*>[size_t(num_images)]) {
  for (int64_t i = 0; i < num_images_; ++i) slots_[i].store(nullptr, std::memory_order_relaxed);
}

ImageCache::~ImageCache() {
  for (int64_t i = 0; i < num_images_; ++i) delete slots_[i].load(std::memory_order_relaxed);
}

size_t ImageCache::bytes() const {
  return allocated(size_t(num_images_) * sizeof(std::atomic<const Entry*>)) + image_bytes_;
}

cv::Mat ImageCache::find(int64_t index) const {
  XTRAIN_CHECK(index >= 0 && index < num_images_, "image {} is not in a cache of {}", index,
               num_images_);
  // Acquire: the pixels written before the entry was published are seen whole.
  const Entry* entry = slots_[index].load(std::memory_order_acquire);
  if (entry == nullptr) return {};
  // OpenCV has no read-only Mat; the contract above keeps the pixels unwritten.
  return cv::Mat(entry->rows, entry->cols, CV_8UC3, entry->pixels.get());
}

void ImageCache::store(int64_t index, const cv::Mat& rgb) {
  XTRAIN_CHECK(index >= 0 && index < num_images_, "image {} is not in a cache of {}", index,
               num_images_);
  XTRAIN_CHECK(rgb.type() == CV_8UC3, "the image cache keeps 8-bit RGB images only");
  if (slots_[index].load(std::memory_order_acquire) != nullptr) return;
  const size_t bytes = entry_bytes(rgb.cols, rgb.rows);
  if (!reserve(bytes)) return;
  auto entry = std::make_unique<Entry>();
  entry->rows = rgb.rows;
  entry->cols = rgb.cols;
  entry->pixels.reset(new uint8_t[rgb.total() * rgb.elemSize()]);
  rgb.copyTo(cv::Mat(rgb.rows, rgb.cols, CV_8UC3, entry->pixels.get()));
  const Entry* none = nullptr;
  // Release: a thread that finds the entry sees its pixels. Another thread may have stored the
  // same image meanwhile: then its entry stays and this one gives its bytes back.
  if (slots_[index].compare_exchange_strong(none, entry.get(), std::memory_order_acq_rel)) {
    entry.release();
  } else {
    stored_bytes_.fetch_sub(bytes, std::memory_order_relaxed);
  }
}

bool ImageCache::reserve(size_t bytes) {
  size_t stored = stored_bytes_.load(std::memory_order_relaxed);
  do {
    if (bytes > image_bytes_ - stored) return false;
  } while (!stored_bytes_.compare_exchange_weak(stored, stored + bytes, std::memory_order_relaxed));
  return true;
}

}  // namespace xtrain
