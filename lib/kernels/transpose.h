// Transposes of row-major matrices.
#pragma once

#include <cstdint>

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

// dst[j * ld_dst + i] = src[i * ld_src + j] for a rows x cols matrix at src, on the calling thread.
// T: float, or uint32_t (bfloat16 pairs).
template <typename T>
void transpose_matrix(int64_t rows, int64_t cols, const T* src, int64_t ld_src, T* dst,
                      int64_t ld_dst);

// Transposes a batch of row-major matrices: dst[b, j, i] = src[b, i, j] for src [batch, rows,
// cols]. NHWC to PyTorch's NCHW order and back (torch.flatten of a feature map) is this with
// rows = H * W, cols = C.
void transpose_batch(int64_t batch, int64_t rows, int64_t cols, const float* src, float* dst,
                     const Exec& ex);

}  // namespace xtrain::kernels
