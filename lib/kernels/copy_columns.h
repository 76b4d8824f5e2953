// Copies a block of columns between row-major matrices of different widths: dst[r, dst_col + j]
// = src[r, src_col + j] for r < rows, j < width. With rows = N * H * W pixels of NHWC tensors this
// is a channel concatenation (each input into its slice of the output) and its backward (each
// slice of the output gradient back out).
#pragma once

#include <cstdint>

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

struct ColumnBlock {
  const float* src;
  int64_t src_width;  // floats per row of src
  int64_t src_col;
  float* dst;
  int64_t dst_width;
  int64_t dst_col;
  int64_t width;  // columns copied
};

// Rows of `width` floats that make a parallel chunk worth its hand-off, a few KB at least: rows may
// be as narrow as DenseNet's 32 channels.
inline int64_t min_rows_per_chunk(int64_t width) { return width >= 1024 ? 1 : 1024 / width + 1; }

void copy_columns(int64_t rows, const ColumnBlock& b, const Exec& ex);

// The same, and dst's other columns set to 0: the gradient of taking columns of dst's rows
// (ChannelSlice, one of ShuffleNetV2's x.chunk(2, dim=1)).
void copy_columns_zero_others(int64_t rows, const ColumnBlock& b, const Exec& ex);

}  // namespace xtrain::kernels
