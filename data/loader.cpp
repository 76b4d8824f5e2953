#include "data/loader.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "data/transforms.h"
#include "lib/base/check.h"
#include "lib/base/escape_bytes.h"

namespace xtrain {
namespace {

// The batches a loader with these options holds ahead of its core: its ring's slots.
int ring_slots(const LoaderOptions& o) {
  XTRAIN_CHECK(o.num_workers >= 1, "--num_workers must be >= 1, got {}", o.num_workers);
  XTRAIN_CHECK(o.prefetch_factor >= 1, "--prefetch_factor must be >= 1, got {}", o.prefetch_factor);
  XTRAIN_CHECK(o.loader_prefetch_size >= 1, "--loader_prefetch_size must be >= 1, got {}",
               o.loader_prefetch_size);
  return std::min(o.loader_prefetch_size, o.num_workers * o.prefetch_factor);
}

// The label of a test sample that could not be read: a hole in its batch of the ring.
constexpr int32_t kUnreadable = -1;

// A decoding worker's buffers, allowed for: the file, the decoded BGR image, its RGB copy and the
// resized crop. Its malloc arena keeps the buffers of the largest image it has decoded, so the
// allowance is a few times what a typical ImageNet photo takes.
constexpr size_t kDecodeBytesPerWorker = size_t{4} << 20;

// A test loader holds back up to a batch of readable images, in 8-bit pixels.
size_t held_back_bytes(const LoaderOptions& o, int64_t image_bytes) {
  return size_t(o.batch_size) * image_bytes;
}

// ToTensor + Normalize of n images into `out`, then RandomErasing's boxes zeroed in the floats:
// torchvision erases after Normalize (random_erasing.h).
void normalize_images(const uint8_t* pixels, const EraseBox* erase, int n, int64_t image_bytes,
                      Elements out) {
  normalize_pixels(pixels, n * image_bytes, out);
  for (int i = 0; i < n; ++i) erase_box(erase[i], out.at(i * image_bytes));
}

}  // namespace

Loader::Loader(std::shared_ptr<const Dataset> dataset, std::shared_ptr<UnreadableImages> unreadable,
               const SamplerOptions& sampler, const LoaderOptions& options)
    : dataset_(std::move(dataset)),
      unreadable_(std::move(unreadable)),
      sampler_options_(sampler),
      sampler_(sampler),
      options_(options),
      ring_(ring_slots(options), options.batch_size, dataset_->image_bytes()),
      workers_(options.num_workers, [this](int) { work(); }) {
  if (!sampler_options_.train) {
    readable_images_.resize(size_t(options_.batch_size) * dataset_->image_bytes());
    readable_labels_.reserve(options_.batch_size);
    readable_erase_.reserve(options_.batch_size);
  }
}

Loader::~Loader() { ring_.close(); }  // every worker returns, then workers_ joins them

SourceMemory Loader::memory_for(const LoaderOptions& options, int64_t image_bytes, bool train) {
  SourceMemory memory;
  memory.buffers =
      BatchRing::image_buffer_bytes_for(ring_slots(options), options.batch_size, image_bytes);
  if (!train) memory.buffers += held_back_bytes(options, image_bytes);
  memory.decoding = options.num_workers * kDecodeBytesPerWorker;
  memory.threads = options.num_workers;
  return memory;
}

size_t Loader::image_buffer_bytes() const {
  return ring_.image_buffer_bytes() + readable_images_.size();
}

int64_t Loader::samples_per_epoch() const {
  const int64_t n = sampler_.num_samples();
  const bool drop_last = sampler_options_.train && sampler_options_.drop_last;
  return drop_last ? n / options_.batch_size * options_.batch_size : n;
}

int64_t Loader::batches_per_epoch() const {
  return (samples_per_epoch() + options_.batch_size - 1) / options_.batch_size;
}

void Loader::start_epoch(int epoch) {
  if (!ring_.stop()) return;  // closed: next() returns 0, and a stuck worker may still read order_
  epoch_ = epoch;
  order_ = sampler_.indices(epoch);
  readable_labels_.clear();
  readable_erase_.clear();
  readable_begin_ = 0;
  scored_any_ = false;
  ring_.start(samples_per_epoch());
}

void Loader::close() {
  closed_ = true;
  ring_.close();
}

int Loader::next(Elements images, int32_t* labels) {
  if (!sampler_options_.train) return next_readable(images, labels);
  const int64_t image_bytes = dataset_->image_bytes();
  return ring_.next(
      [&](const uint8_t* pixels, const int32_t* batch_labels, const EraseBox* erase, int n) {
        normalize_images(pixels, erase, n, image_bytes, images);
        std::copy_n(batch_labels, n, labels);
      });
}

// Fills the batch with the next readable samples of the epoch, taking the ring's batches as it
// needs them: a batch of the ring whose samples are all unreadable is passed over.
int Loader::next_readable(Elements images, int32_t* labels) {
  const int64_t image_bytes = dataset_->image_bytes();
  int n = 0;
  while (n < options_.batch_size && !closed_) {
    if (readable_begin_ == readable_labels_.size()) {
      const int direct = take_ring_batch(n == 0 ? &images : nullptr, labels);
      if (direct < 0) break;
      if (direct == 0) continue;
      n = direct;
      scored_any_ = true;
      break;
    }
    const int rows = static_cast<int>(
        std::min<size_t>(options_.batch_size - n, readable_labels_.size() - readable_begin_));
    normalize_images(readable_images_.data() + readable_begin_ * image_bytes,
                     readable_erase_.data() + readable_begin_, rows, image_bytes,
                     images.at(n * image_bytes));
    std::copy_n(readable_labels_.data() + readable_begin_, rows, labels + n);
    readable_begin_ += rows;
    n += rows;
    scored_any_ = true;
  }
  return closed_ ? 0 : n;
}

// Takes the ring's next batch. Without a hole, and given `into` (an empty batch), its samples
// go straight there: returns how many. Otherwise its readable samples are held back for the
// batches to come: returns 0. Returns -1 once the epoch is over.
int Loader::take_ring_batch(const Elements* into, int32_t* labels) {
  const int64_t image_bytes = dataset_->image_bytes();
  readable_labels_.clear();
  readable_erase_.clear();
  readable_begin_ = 0;
  int direct = 0;
  const int taken = ring_.next([&](const uint8_t* pixels, const int32_t* batch_labels,
                                   const EraseBox* erase, int n) {
    const bool whole = std::find(batch_labels, batch_labels + n, kUnreadable) == batch_labels + n;
    if (whole && into != nullptr) {  // the common case: no copy of the pixels
      normalize_images(pixels, erase, n, image_bytes, *into);
      std::copy_n(batch_labels, n, labels);
      direct = n;
      return;
    }
    for (int i = 0; i < n; ++i) {
      if (batch_labels[i] == kUnreadable) continue;
      std::copy_n(pixels + i * image_bytes, image_bytes,
                  readable_images_.data() + readable_labels_.size() * image_bytes);
      readable_labels_.push_back(batch_labels[i]);
      readable_erase_.push_back(erase[i]);
    }
  });
  XTRAIN_CHECK(taken > 0 || scored_any_ || closed_ || samples_per_epoch() == 0,
               "no readable image among the {} samples of this core's epoch", samples_per_epoch());
  return taken > 0 ? direct : -1;
}

void Loader::work() {
  BatchRing::Claim claim;
  while (ring_.claim(&claim)) {
    std::exception_ptr error;
    try {
      load(claim);
    } catch (...) {
      error = std::current_exception();
    }
    ring_.finish(claim, error);
  }
}

// Fills the claimed slot with the sample at its position. When that one is unreadable, a
// training slot takes the next readable one of the epoch (wrapping around); a test slot is left
// a hole, marked by its label.
void Loader::load(const BatchRing::Claim& claim) {
  // The slot's position in the epoch over all replicas keys its random generator: unique in the
  // epoch, and independent of the workers.
  const uint64_t global_position =
      static_cast<uint64_t>(claim.position) * sampler_options_.num_replicas + sampler_options_.rank;
  auto load_sample = [&](int64_t index) {
    Rng rng({sampler_options_.seed, static_cast<uint64_t>(epoch_), global_position});
    return try_load(index, rng, claim);
  };
  if (load_sample(order_[claim.position])) return;
  ++skipped_;
  if (!sampler_options_.train) {
    *claim.label = kUnreadable;
    return;
  }
  const int64_t n = static_cast<int64_t>(order_.size());
  for (int64_t offset = 1; offset < n; ++offset) {
    if (load_sample(order_[(claim.position + offset) % n])) return;
  }
  XTRAIN_CHECK(false, "no readable image among the {} samples of this core's epoch", n);
}

bool Loader::try_load(int64_t index, Rng& rng, const BatchRing::Claim& claim) {
  if (unreadable_->contains(index)) return false;
  try {
    *claim.erase = dataset_->get(index, rng, claim.image, claim.label);
    return true;
  } catch (const UnreadableImage& e) {
    if (options_.strict) {
      throw UnreadableImage(fmt::format("unreadable image {} (--strict)", e.what()), e.where());
    }
    if (unreadable_->add(index))
      spdlog::warn("warning: skipping unreadable image {}", escape_bytes(e.what()));
    return false;
  }
}

}  // namespace xtrain
