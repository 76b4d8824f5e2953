#include "lib/kernels/copy_columns.h"

#include <cstring>

namespace xtrain::kernels {

void copy_columns(int64_t rows, const ColumnBlock& b, const Exec& ex) {
  parallel_for(
      ex, rows,
      [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          std::memcpy(b.dst + r * b.dst_width + b.dst_col, b.src + r * b.src_width + b.src_col,
                      sizeof(float) * b.width);
        }
      },
      min_rows_per_chunk(b.width));
}

void copy_columns_zero_others(int64_t rows, const ColumnBlock& b, const Exec& ex) {
  parallel_for(
      ex, rows,
      [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          float* dst = b.dst + r * b.dst_width;
          std::memset(dst, 0, sizeof(float) * b.dst_col);
          std::memcpy(dst + b.dst_col, b.src + r * b.src_width + b.src_col,
                      sizeof(float) * b.width);
          std::memset(dst + b.dst_col + b.width, 0,
                      sizeof(float) * (b.dst_width - b.dst_col - b.width));
        }
      },
      min_rows_per_chunk(b.dst_width));
}

}  // namespace xtrain::kernels
