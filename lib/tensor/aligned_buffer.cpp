#include "lib/tensor/aligned_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace xtrain {
namespace {

// x86-64's transparent huge page: one TLB entry covers what 512 small pages would.
constexpr size_t kHugePage = size_t{2} << 20;

}  // namespace

AlignedBuffer::AlignedBuffer(size_t num_floats) : AlignedBuffer(uninitialized(num_floats)) {
  if (size_ > 0) std::memset(data_.get(), 0, round_up(size_) * sizeof(float));
}

AlignedBuffer AlignedBuffer::uninitialized(size_t num_floats) {
  AlignedBuffer buffer;
  if (num_floats == 0) return buffer;
  // A buffer of a huge page or more (parameters, gradients, arenas, the padded inputs of
  // convolutions) starts on a huge-page boundary and asks for huge pages over its whole ones:
  // the kernels stride across buffers far larger than the small pages' TLB reach, and its misses
  // cost a visible share of a step. Linux's default THP mode, "madvise", gives them only on
  // request; the tail past the last whole huge page keeps small pages, so the resident size does
  // not grow.
  const size_t bytes = round_up(num_floats) * sizeof(float);
  const bool huge = bytes >= kHugePage;
  void* p = nullptr;  // posix_memalign: aligned_alloc wants sizes in whole alignments
  if (posix_memalign(&p, huge ? kHugePage : kAlignment, bytes) != 0) throw std::bad_alloc();
  if (huge) madvise(p, bytes / kHugePage * kHugePage, MADV_HUGEPAGE);  // a hint: failure is fine
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
