// Software prefetch for loops that walk down the rows of a matrix too large for the caches (the
// GEMM's packers, BatchNorm's passes, the bfloat16 backward-weight tap tiles over x and dy).
// Hardware prefetchers can leave such loops waiting on DRAM: the packers of the bfloat16
// backward-weight GEMMs over large maps (ResNet-50's 56x56 stage) took about twice as long until
// they asked for their rows ahead. BatchNorm asks only where that pays (batchnorm_prefetch_pays).
#pragma once

#include <cstdint>

namespace xtrain::kernels {

// How many storage rows ahead a loop asks for: the nearest distance that reached the packers'
// whole gain in bench_conv; asking further ahead gave nothing more.
constexpr int64_t kPrefetchRows = 16;

// Asks for the cache lines of `count` elements of each of `rows` rows from `kPrefetchRows` rows
// below `row` on (rows `ld` elements apart). A hint: past the end of the matrix it fetches nothing
// harmful, and it never faults.
template <typename T>
inline void prefetch_rows_ahead(const T* row, int64_t ld, int64_t rows, int64_t count) {
  const char* first = reinterpret_cast<const char*>(row + kPrefetchRows * ld);
  const int64_t row_bytes = ld * static_cast<int64_t>(sizeof(T));
  const int64_t bytes = count * static_cast<int64_t>(sizeof(T));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(first + r * row_bytes + b);
  }
}

// The same for the two rows a packer takes at a time.
template <typename T>
inline void prefetch_two_rows_ahead(const T* row, int64_t ld, int64_t count) {
  prefetch_rows_ahead(row, ld, 2, count);
}

// Whether BatchNorm's passes, which stream whole activations row after row, gain by asking for
// their rows ahead on a CPU of this vendor and family (CPUID) with or without AVX-512. On AMD
// family 0x19 with AVX-512 the hardware prefetchers keep up and asking costs time, so they do not
// ask there. On family 0x1a they gain; on CPUs not yet measured they ask, as the packers do.
bool batchnorm_prefetch_pays(bool amd, int family, bool avx512);
// The same for this machine's CPU, read once.
bool batchnorm_prefetch_pays();

}  // namespace xtrain::kernels
