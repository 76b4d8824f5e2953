// UnreadableImages: the samples of one data set found unreadable so far. Every core's loader of
// that data set shares it, so a bad file is reported once and never read again.
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_set>

namespace xtrain {

class UnreadableImages {
 public:
  bool contains(int64_t index) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return indices_.count(index) > 0;
  }
  // Records `index`; true the first time (the caller then reports it).
  bool add(int64_t index) {
    std::lock_guard<std::mutex> lock(mutex_);
    return indices_.insert(index).second;
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_set<int64_t> indices_;
};

}  // namespace xtrain
