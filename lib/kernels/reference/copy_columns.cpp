#include "lib/kernels/reference/copy_columns.h"

namespace xtrain::kernels::reference {

void copy_columns(int64_t rows, const ColumnBlock& b) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < b.width; ++j)
      b.dst[r * b.dst_width + b.dst_col + j] = b.src[r * b.src_width + b.src_col + j];
}

void copy_columns_zero_others(int64_t rows, const ColumnBlock& b) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < b.dst_width; ++j) {
      const int64_t from = j - b.dst_col;
      b.dst[r * b.dst_width + j] =
          from >= 0 && from < b.width ? b.src[r * b.src_width + b.src_col + from] : 0.0f;
    }
}

}  // namespace xtrain::kernels::reference
