// Software prefetch for loops that walk down the rows of a matrix too large for the caches (the
// GEMM's packers, BatchNorm's passes, the bfloat16 backward-weight tap tiles over x and dy). On
// issue 15's Zen 5 the hardware prefetchers leave such loops waiting on DRAM: the bfloat16
// backward-weight GEMMs of ResNet-50's 56x56 stage packed x^T and dy at about 4 GB/s and ran
// 1.7-2.3x faster once the packers asked for their rows ahead (bench_conv --bf16). BatchNorm
// asks only where that pays (batchnorm_prefetch_pays).
#pragma once

#include <cstdint>

namespace xtrain::kernels {

// How many storage rows ahead a loop asks for: 16 reached the packers' whole gain in bench_conv,
// 64 gave nothing more.
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
// their rows ahead on a CPU of this vendor and family (CPUID) with or without AVX-512. They do on
// Zen 5 (family 0x1a: the bfloat16 backward of 100352 x 256 1.5x faster); on Zen 4 (0x19 with
// AVX-512) the hardware keeps up and asking costs time (the ResNet-50 profile's BatchNorm
// backward 10-14% longer). Elsewhere unmeasured: they ask.
bool batchnorm_prefetch_pays(bool amd, int family, bool avx512);
// The same for this machine's CPU, read once.
bool batchnorm_prefetch_pays();

}  // namespace xtrain::kernels
