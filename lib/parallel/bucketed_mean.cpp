#include "lib/parallel/bucketed_mean.h"

#include <algorithm>
#include <chrono>
#include <exception>

#include "lib/base/check.h"
#include "lib/parallel/barrier.h"
#include "lib/parallel/replica_sum.h"

namespace xtrain {

std::vector<size_t> bucket_starts(std::vector<size_t> cuts, size_t n, size_t cap) {
  std::sort(cuts.begin(), cuts.end(), std::greater<>());
  std::vector<size_t> starts;
  size_t end = n;
  for (size_t cut : cuts) {
    if (cut > 0 && cut < end && end - cut >= cap) {
      starts.push_back(cut);
      end = cut;
    }
  }
  starts.push_back(0);
  return starts;
}

namespace {

std::vector<size_t> checked_starts(std::vector<size_t> starts, size_t n) {
  XTRAIN_CHECK(!starts.empty() && starts.back() == 0 &&
                   std::is_sorted(starts.rbegin(), starts.rend()) && starts.front() <= n,
               "BucketedMean: bucket starts must fall from at most {} to 0", n);
  return starts;
}

}  // namespace

BucketedMean::BucketedMean(int num_replicas, ProcessGroup& processes, std::vector<size_t> starts,
                           size_t n)
    : num_replicas_(num_replicas),
      processes_(processes),
      starts_(checked_starts(std::move(starts), n)),
      n_(n),
      blocks_(num_replicas),
      buffers_(num_replicas, nullptr),
      ready_from_(num_replicas, n),
      steps_(num_replicas, 0),
      reduced_from_(n),
      reducer_(1, [this](int) { reduce_steps(); }) {}

BucketedMean::~BucketedMean() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();  // the reducer returns; then reducer_ joins it
}

void BucketedMean::start(int rank, float* data) {
  std::lock_guard<std::mutex> lock(mutex_);
  buffers_[rank] = data;
  ready_from_[rank] = n_;
  ++steps_[rank];
  if (++started_ == num_replicas_) changed_.notify_all();
}

void BucketedMean::ready(int rank, size_t offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  ready_from_[rank] = std::min(ready_from_[rank], offset);
  if (offset <= waiting_for_) changed_.notify_all();
}

double BucketedMean::finish(int rank) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return aborted_ || finished_steps_ >= steps_[rank]; });
  if (failure_) std::rethrow_exception(failure_);
  if (aborted_) throw MeshAborted();
  return rank == 0 ? across_seconds_ : 0.0;
}

size_t BucketedMean::reduced_from() {
  std::lock_guard<std::mutex> lock(mutex_);
  return reduced_from_;
}

void BucketedMean::abort() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    aborted_ = true;
  }
  changed_.notify_all();
}

void BucketedMean::reduce_steps() {
  std::unique_lock<std::mutex> lock(mutex_);
  auto done = [&] { return aborted_ || stopping_; };
  for (;;) {
    changed_.wait(lock, [&] { return done() || started_ == num_replicas_; });
    if (done()) return;
    started_ = 0;
    reduced_from_ = n_;
    double across_seconds = 0.0;
    size_t end = n_;
    for (size_t begin : starts_) {
      waiting_for_ = begin;
      changed_.wait(lock, [&] {
        return done() || *std::max_element(ready_from_.begin(), ready_from_.end()) <= begin;
      });
      waiting_for_ = SIZE_MAX;
      if (done()) return;
      lock.unlock();
      try {
        across_seconds += reduce(begin, end);
      } catch (const std::exception&) {
        lock.lock();
        failure_ = std::current_exception();
        aborted_ = true;
        changed_.notify_all();
        return;
      }
      lock.lock();
      reduced_from_ = end = begin;
    }
    across_seconds_ = across_seconds;
    ++finished_steps_;
    changed_.notify_all();
  }
}

// The mean of [begin, end) in every core's buffer; returns the seconds spent across processes.
// Reads buffers_ without the lock: every core published its buffer in start() before the reducer
// left its wait, and none changes it before finish() returns.
double BucketedMean::reduce(size_t begin, size_t end) {
  add_up_replicas(buffers_.data(), num_replicas_, begin, end, blocks_);
  const auto start = std::chrono::steady_clock::now();
  processes_.sum(buffers_[0] + begin, end - begin);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const float scale = 1.0f / static_cast<float>(num_replicas_ * processes_.size());
  scale_and_copy_back(buffers_.data(), num_replicas_, begin, end, scale);
  return seconds;
}

}  // namespace xtrain
