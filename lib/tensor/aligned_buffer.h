// AlignedBuffer: one 64-byte aligned, zero-initialized allocation of floats (a cache line, an
// AVX-512 vector). Parameters, gradients, optimizer state and plan arenas are each one of these.
// uninitialized() skips the clearing for memory that is always written before it is read (a
// plan's arena): pages never touched then cost no resident memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace xtrain {

class AlignedBuffer {
 public:
  static constexpr size_t kAlignment = 64;

  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t num_floats);
  static AlignedBuffer uninitialized(size_t num_floats);

  float* data() { return data_.get(); }
  const float* data() const { return data_.get(); }
  size_t size() const { return size_; }

  // Hands the buffer's whole pages back to the system, keeping the allocation: they read as
  // zeros when next touched, and cost no resident memory until then. For memory whose contents
  // are no longer needed (the arena of a plan that is not running).
  void release_pages();

  // Rounds a float count up so that consecutive views stay aligned.
  static size_t round_up(size_t num_floats) {
    constexpr size_t kFloats = kAlignment / sizeof(float);
    return (num_floats + kFloats - 1) / kFloats * kFloats;
  }

 private:
  struct Free {
    void operator()(float* p) const;
  };
  std::unique_ptr<float, Free> data_;
  size_t size_ = 0;
};

}  // namespace xtrain
