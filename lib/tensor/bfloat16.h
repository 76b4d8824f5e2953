// BFloat16: the top half of a float32 (sign, 8 exponent bits, 7 mantissa bits), the number
// format of TPUs and of the AVX512_BF16 instructions. Rounding is to nearest, ties to even, as
// PyTorch rounds; like the AVX512_BF16 instructions, a float32 denormal (below 1.2e-38) becomes
// a zero of its sign and a NaN stays a quiet NaN, so the emulated path rounds to the very bits
// the hardware does. Written without branches, so loops over it vectorize.
#pragma once

#include <cstdint>
#include <cstring>

namespace xtrain {

struct BFloat16 {
  uint16_t bits;
};

inline uint32_t float_bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

inline BFloat16 to_bfloat16(float x) {
  const uint32_t u = float_bits(x);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const uint32_t quiet_nan = (u >> 16) | 0x40u;
  const uint32_t signed_zero = (u >> 16) & 0x8000u;
  const bool is_nan = (u & 0x7fffffffu) > 0x7f800000u;
  const bool zero_or_denormal = (u & 0x7f800000u) == 0;
  return {static_cast<uint16_t>(is_nan ? quiet_nan : zero_or_denormal ? signed_zero : rounded)};
}

inline float to_float(BFloat16 b) {
  const uint32_t u = uint32_t{b.bits} << 16;
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// x rounded to the nearest bfloat16, as a float32 (exactly representable).
inline float round_to_bfloat16(float x) { return to_float(to_bfloat16(x)); }

}  // namespace xtrain
