#include "lib/kernels/transpose.h"

#include <algorithm>

namespace xtrain::kernels {

template <typename T>
void transpose_matrix(int64_t rows, int64_t cols, const T* src, int64_t ld_src, T* dst,
                      int64_t ld_dst) {
  // Tiles of 16 x 16 keep both sides' cache lines in use while they are read and written.
  constexpr int64_t kTile = 16;
  for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t i1 = std::min(rows, i0 + kTile), j1 = std::min(cols, j0 + kTile);
      for (int64_t i = i0; i < i1; ++i) {
        for (int64_t j = j0; j < j1; ++j) dst[j * ld_dst + i] = src[i * ld_src + j];
      }
    }
  }
}

template void transpose_matrix(int64_t, int64_t, const float*, int64_t, float*, int64_t);
template void transpose_matrix(int64_t, int64_t, const uint32_t*, int64_t, uint32_t*, int64_t);

void transpose_batch(int64_t batch, int64_t rows, int64_t cols, const float* src, float* dst,
                     const Exec& ex) {
  const int64_t matrix = rows * cols;
  parallel_for(ex, batch, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      transpose_matrix(rows, cols, src + b * matrix, cols, dst + b * matrix, rows);
    }
  });
}

}  // namespace xtrain::kernels
