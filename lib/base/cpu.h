// What the CPU this build targets can do: -march=native compiles for the machine that builds,
// XTRAIN_PORTABLE=1 for a baseline every x86-64 CPU runs. The kernels choose their instructions by
// the same compiler macros, so these answers hold for every kernel of the build.
#pragma once

namespace xtrain {

// Whether bfloat16 products run on AVX512_BF16's dot-product instruction. Otherwise the kernels
// emulate it, to the same bits.
constexpr bool bfloat16_in_hardware() {
#if defined(__AVX512BF16__)
  return true;
#else
  return false;
#endif
}

}  // namespace xtrain
