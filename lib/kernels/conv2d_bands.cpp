#include "lib/kernels/conv2d_bands.h"

#include <algorithm>
#include <cstdint>

#include "lib/kernels/simd.h"

namespace xtrain::kernels {
namespace {

// Output channels a band should reach: the GEMM micro-kernel's width, two vectors. Measured on
// ResNeXt-50's 3x3 layers at batch 16 (AVX2, 2 threads; bench_conv): bands of 16 channels beat
// 32 and 64 on every stage, since wider bands only add zeros to multiply.
constexpr int kBandChannels = 2 * simd::kLanes;

// Calls fn(banded index, weight index) for every weight of a band's diagonal blocks. Banded row
// (tap, ci) holds input channel ci of the band; output channel co is in band group co / go % b,
// whose input channels are the band's [j * gi, (j + 1) * gi).
template <typename Fn>
void for_each_diagonal_weight(const Conv2dShape& s, Fn&& fn) {
  const int b = band_groups(s), gi = s.group_in(), go = s.group_out();
  const int64_t taps = int64_t{s.kh} * s.kw;
  for (int64_t tap = 0; tap < taps; ++tap) {
    for (int co = 0; co < s.c_out; ++co) {
      const int j = co / go % b;
      for (int i = 0; i < gi; ++i) {
        fn((tap * b * gi + j * gi + i) * s.c_out + co, (tap * gi + i) * s.c_out + co);
      }
    }
  }
}

}  // namespace

int band_groups(const Conv2dShape& s) {
  if (s.groups == 1 || s.group_out() >= kBandChannels) return 1;
  int b = 1;
  while (b < s.groups && (s.groups % b != 0 || b * s.group_out() < kBandChannels)) ++b;
  return b;
}

Conv2dShape banded(const Conv2dShape& s) {
  Conv2dShape wide = s;
  wide.groups = s.groups / band_groups(s);
  return wide;
}

size_t banded_weight_floats(const Conv2dShape& s) {
  return static_cast<size_t>(banded(s).patch() * s.c_out);
}

void expand_to_bands(const Conv2dShape& s, const float* weight, float* banded_weight) {
  std::fill(banded_weight, banded_weight + banded_weight_floats(s), 0.0f);
  for_each_diagonal_weight(s, [&](int64_t bi, int64_t wi) { banded_weight[bi] = weight[wi]; });
}

void add_band_diagonals(const Conv2dShape& s, const float* banded_dweight, float* dweight) {
  for_each_diagonal_weight(s, [&](int64_t bi, int64_t wi) { dweight[wi] += banded_dweight[bi]; });
}

}  // namespace xtrain::kernels
