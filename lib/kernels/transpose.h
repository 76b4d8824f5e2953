// Transposes a batch of row-major matrices: dst[b, j, i] = src[b, i, j] for src [batch, rows,
// cols]. NHWC to PyTorch's NCHW order and back (torch.flatten of a feature map) is this with
// rows = H * W, cols = C.
#pragma once

#include <cstdint>

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

void transpose_batch(int64_t batch, int64_t rows, int64_t cols, const float* src, float* dst,
                     const Exec& ex);

}  // namespace xtrain::kernels
