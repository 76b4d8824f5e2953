// The scratch each kernel thread has of its own (Exec::scratch), in floats: as much as the
// largest user needs (GEMM's packing blocks; max-pooling's ring of rows fits in it), in whole
// 64-byte lines. A plan sets aside this much per thread of its core.
#pragma once

#include <cstddef>

namespace xtrain::kernels {

size_t thread_scratch_floats();

}  // namespace xtrain::kernels
