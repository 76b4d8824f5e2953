// Rng: the small random generator of the data pipeline (SplitMix64), seeded from a tuple of keys
// such as (seed, epoch, sample position). Each sample gets its own generator, so its augmentation
// depends only on those keys, never on which worker thread draws it or when.
// Not here: what the numbers are used for (samplers, transforms).
#pragma once

#include <cstdint>
#include <initializer_list>

namespace xtrain {

class Rng {
 public:
  explicit Rng(std::initializer_list<uint64_t> keys) {
    for (uint64_t key : keys) state_ = mix(state_ ^ mix(key));
  }

  uint64_t next_u64() {
    state_ += kGoldenGamma;
    return mix(state_);
  }
  // Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [lo, hi), hi > lo (Lemire's multiply-shift; its bias is below 2^-32 for
  // the ranges used here).
  int64_t randint(int64_t lo, int64_t hi) {
    const uint64_t range = static_cast<uint64_t>(hi - lo);
    return lo + static_cast<int64_t>((static_cast<unsigned __int128>(next_u64()) * range) >> 64);
  }

 private:
  static constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ull;
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  uint64_t state_ = kGoldenGamma;
};

}  // namespace xtrain
