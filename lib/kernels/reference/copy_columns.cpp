#include "lib/kernels/reference/copy_columns.h"

namespace xtrain::kernels::reference {

void copy_columns(int64_t rows, const ColumnBlock& b) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < b.width; ++j)
      b.dst[r * b.dst_width + b.dst_col + j] = b.src[r * b.src_width + b.src_col + j];
}

}  // namespace xtrain::kernels::reference
