#include "lib/tensor/aligned_buffer.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace xtrain {

AlignedBuffer::AlignedBuffer(size_t num_floats) : size_(num_floats) {
  if (num_floats == 0) return;
  const size_t bytes = round_up(num_floats) * sizeof(float);
  void* p = std::aligned_alloc(kAlignment, bytes);
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  data_.reset(static_cast<float*>(p));
}

void AlignedBuffer::Free::operator()(float* p) const { std::free(p); }

}  // namespace xtrain
