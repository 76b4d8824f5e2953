#include "lib/tensor/aligned_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace xtrain {

AlignedBuffer::AlignedBuffer(size_t num_floats) : AlignedBuffer(uninitialized(num_floats)) {
  if (size_ > 0) std::memset(data_.get(), 0, round_up(size_) * sizeof(float));
}

AlignedBuffer AlignedBuffer::uninitialized(size_t num_floats) {
  AlignedBuffer buffer;
  if (num_floats == 0) return buffer;
  void* p = std::aligned_alloc(kAlignment, round_up(num_floats) * sizeof(float));
  if (p == nullptr) throw std::bad_alloc();
  buffer.data_.reset(static_cast<float*>(p));
  buffer.size_ = num_floats;
  return buffer;
}

void AlignedBuffer::release_pages() {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data_.get());
  const uintptr_t first = (begin + page - 1) / page * page;
  const uintptr_t last = (begin + size_ * sizeof(float)) / page * page;
  if (first < last) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

void AlignedBuffer::Free::operator()(float* p) const { std::free(p); }

}  // namespace xtrain
