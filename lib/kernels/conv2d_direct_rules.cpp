// Which shapes the direct passes serve (conv2d_direct.h), each rule with its reason. The direct
// kernels win where im2col and packing cost more than the products: few input channels a group,
// output channels in whole vectors, and maps wide enough to fill their register tiles.
#include "lib/kernels/conv2d_direct.h"
#include "lib/kernels/conv2d_direct_tiles.h"

namespace xtrain::kernels {
namespace {

using direct::forward_tile_pixels;
using direct::kLanes;

// The direct kernels win while a patch element feeds few FMAs and im2col + packing dominate;
// past this many input channels a group the packed GEMM is faster. In bfloat16 the forward and
// backward-data kernels win up to twice as many (max_direct_in_channels).
constexpr int kMaxDirectInChannels = 256;

// Whether this build has the direct bfloat16 kernels (conv2d_direct_bf16.h): a build for a CPU
// with AVX512_BF16. Elsewhere bfloat16 convolutions take the GEMM paths, which emulate the
// instruction.
#if defined(__AVX512BF16__)
constexpr bool kBf16KernelsBuilt = true;
#else
constexpr bool kBf16KernelsBuilt = false;
#endif

// Groups the direct kernels take: up to the GEMM micro-kernel's width of output channels (two
// vectors). Wider groups fill the micro-kernel, and a GEMM per group wins: ResNeXt-50's last 3x3
// layer (32 channels a group at 7x7) runs faster on the GEMM, while its 16-channel groups at
// 14x14 run faster here.
bool narrow_groups(const Conv2dShape& s) { return s.groups == 1 || s.group_out() <= 2 * kLanes; }

// Whether the bfloat16 kernels' pairs of taps fit s: ungrouped (an odd run's last pair gets a zero
// weight) or with an even number of input channels per group (each group's taps pair up within
// it), in a build that has them.
bool bf16_taps_pair_up(const Conv2dShape& s) {
  return kBf16KernelsBuilt && (s.groups == 1 || s.group_in() % 2 == 0);
}

// Input channels per group up to which the forward and backward-data kernels take a layer. In
// bfloat16 they beat the GEMM on 3x3 layers over 512 channels too, whose padding taps they skip
// and whose patches they need not copy. In float32 they gain less or lose there (a stride-2 layer
// from 14x14 runs slower direct), and with AVX2's 6-pixel tiles they take well over the GEMM's
// time.
int max_direct_in_channels(Precision precision) {
  return precision == Precision::kBFloat16 ? 2 * kMaxDirectInChannels : kMaxDirectInChannels;
}

// Whether s's output rows are narrower than a forward tile (14 pixels with AVX-512) over a patch
// deep enough for the GEMM to run near its peak. Then the im2col GEMM wins the backward-weight
// pass, whose tiles sum over a row's pixels, or ties (ResNet-18's 3x3 layers at 7x7 and the
// stride-2 one from 14x14). Narrow channels stay direct: ResNet-20's 64 channels at 7x7 run
// faster there.
bool narrow_map_over_deep_patch(const Conv2dShape& s) {
  return s.out_w() < forward_tile_pixels(2) && s.group_in() >= kMaxDirectInChannels;
}

// The same for the forward and backward-data passes, whose tiles take two output rows where a
// map is at most half a tile wide (a 7x7 map: 14 pixels of 14): maps that fill neither one row
// nor two (8 to 13 pixels wide with AVX-512). Two rows of 7 fill a tile, and there the direct
// kernels beat the GEMM in both precisions (ResNet-18's stride-2 3x3 layer into 7x7).
bool half_empty_tiles_over_deep_patch(const Conv2dShape& s) {
  return narrow_map_over_deep_patch(s) && 2 * s.out_w() > forward_tile_pixels(2);
}

}  // namespace

bool conv2d_direct_suits(const Conv2dShape& s, Precision precision) {
  if (precision == Precision::kBFloat16 && !bf16_taps_pair_up(s)) return false;
  return s.pad_h == s.pad_w && s.group_out() % kLanes == 0 && narrow_groups(s) &&
         s.group_in() <= max_direct_in_channels(precision) && !s.is_pointwise() &&
         !half_empty_tiles_over_deep_patch(s);
}

bool conv2d_direct_backward_weight_suits(const Conv2dShape& s, Precision precision) {
  if (precision == Precision::kBFloat16 && !kBf16KernelsBuilt) return false;
  if (s.pad_h != s.pad_w || s.group_out() % kLanes != 0 || !narrow_groups(s) ||
      narrow_map_over_deep_patch(s)) {
    return false;
  }
  // A 1x1 kernel: the GEMM reads x^T in place (an im2col subsampling where strided) and wins,
  // widening or narrowing; in bfloat16 the direct pass would first pair the pixels of x and dy.
  if (s.kh * s.kw == 1) return false;
  // A stride-1 kernel past 1x1 in float32, whatever the channels: im2col + GEMM reads and writes
  // all of dweight again for every im2col tile. In bfloat16 the GEMM's deep products win past
  // kMaxDirectInChannels.
  if (s.stride == 1 && precision == Precision::kFloat32) return true;
  return s.group_in() <= kMaxDirectInChannels;
}

bool conv2d_direct_backward_data_suits(const Conv2dShape& s, Precision precision) {
  return conv2d_direct_suits(s, precision) && s.group_in() % kLanes == 0;
}

// The bfloat16 backward-weight pass sums over pairs of neighbouring output pixels (vdpbf16ps). Its
// channel tiles broadcast a tap's pair of pixels from a pixel-paired copy of the padded input into
// c_out / 16 vectors of dy pairs; its tap tiles pair 16 taps of two pixels in a register from x as
// it is and broadcast each channel's dy pair into them. The paired copy costs in proportion to
// c_in, the products to c_in x c_out: with few output channels the copy dominates and the tap
// tiles win; with many, channel tiles broadcast each pair into more vectors than tap tiles do, and
// need no transposes.
bool conv2d_tap_tiles_suit(const Conv2dShape& s, Precision precision) {
  return conv2d_direct_backward_weight_suits(s, precision) && s.c_out <= 2 * kLanes;
}

}  // namespace xtrain::kernels
