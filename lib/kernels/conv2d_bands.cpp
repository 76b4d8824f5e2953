#include "lib/kernels/conv2d_bands.h"

#include <algorithm>
#include <cstdint>

#include "lib/kernels/conv2d_direct.h"
#include "lib/kernels/simd.h"

namespace xtrain::kernels {
namespace {

// The fewest groups per band that divides the groups and reaches `channels` output channels.
int groups_per_band(const Conv2dShape& s, int channels) {
  if (s.groups == 1 || s.group_out() >= channels) return 1;
  int b = 1;
  while (b < s.groups && (s.groups % b != 0 || b * s.group_out() < channels)) ++b;
  return b;
}

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

// Bands reach one vector of output channels where the banded convolution then runs on the direct
// kernels (which take groups a vector wide), else the GEMM micro-kernel's width, two vectors. The
// direct kernels over bands of one vector run the narrow groups several times faster than the
// GEMM over bands of two. On the GEMM, bands of two vectors beat wider ones on every stage, since
// wider bands only add zeros to multiply.
int band_groups(const Conv2dShape& s) {
  const int narrow = groups_per_band(s, simd::kLanes);
  Conv2dShape narrow_bands = s;
  narrow_bands.groups = s.groups / narrow;
  if (conv2d_direct_suits(narrow_bands, Precision::kFloat32) &&
      conv2d_direct_backward_data_suits(narrow_bands, Precision::kFloat32)) {
    return narrow;
  }
  return groups_per_band(s, 2 * simd::kLanes);
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

void forward_in_bands(const Conv2dShape& s, ConstElements x, const float* weight, const float* bias,
                      Elements y, float* workspace, const Exec& ex, Precision precision) {
  expand_to_bands(s, weight, workspace);
  conv2d_forward(banded(s), x, workspace, bias, y, workspace + banded_weight_floats(s), ex,
                 precision);
}

void backward_data_in_bands(const Conv2dShape& s, ConstElements dy, const float* weight,
                            Elements dx, float* workspace, const Exec& ex, Precision precision,
                            bool add) {
  expand_to_bands(s, weight, workspace);
  conv2d_backward_data(banded(s), dy, workspace, dx, workspace + banded_weight_floats(s), ex,
                       precision);
}

void backward_weight_in_bands(const Conv2dShape& s, ConstElements x, ConstElements dy,
                              float* dweight, float* workspace, const Exec& ex,
                              Precision precision) {
  const size_t floats = banded_weight_floats(s);
  std::fill(workspace, workspace + floats, 0.0f);
  conv2d_backward_weight(banded(s), x, dy, workspace, /*dbias=*/nullptr, workspace + floats, ex,
                         precision);
  add_band_diagonals(s, workspace, dweight);
}

}  // namespace xtrain::kernels
