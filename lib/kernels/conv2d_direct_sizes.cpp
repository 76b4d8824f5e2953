#include "lib/kernels/conv2d_direct_sizes.h"

#include <algorithm>

#include "lib/kernels/conv2d_direct.h"
#include "lib/kernels/conv2d_direct_phases.h"
#include "lib/tensor/aligned_buffer.h"

namespace xtrain::kernels {
namespace direct {
namespace {

int bf16_images_per_chunk(int n, int64_t h, int64_t w, int64_t c, int pad) {
  const size_t per_image = bf16_padded_floats(1, h, w, c, pad);
  return static_cast<int>(std::clamp<int64_t>(kPaddedChunkFloats / per_image, 1, n));
}

}  // namespace

int input_chunk(const Conv2dShape& s) { return images_per_chunk(s.n, s.h, s.w, s.c_in, s.pad_h); }

int dy_chunk(const Conv2dShape& s) {
  return images_per_chunk(s.n, s.out_h(), s.out_w(), s.c_out, dy_padding(s));
}

size_t forward_workspace_floats(const Conv2dShape& s) {
  return padded_floats(input_chunk(s), s.h, s.w, s.c_in, s.pad_h);
}

size_t phase_kernels_floats(const Conv2dShape& s) {
  return AlignedBuffer::round_up(s.patch() * s.c_out);
}

size_t backward_data_workspace_floats(const Conv2dShape& s) {
  return phase_kernels_floats(s) +
         padded_floats(dy_chunk(s), s.out_h(), s.out_w(), s.c_out, dy_padding(s));
}

size_t bf16_padded_floats(int64_t n, int64_t h, int64_t w, int64_t c, int pad) {
  return AlignedBuffer::round_up((n * (h + 2 * pad) * (w + 2 * pad) * c + 2) / 2);  // + its zero
}

int bf16_input_chunk(const Conv2dShape& s) {
  return bf16_images_per_chunk(s.n, s.h, s.w, s.c_in, s.pad_h);
}

int bf16_dy_chunk(const Conv2dShape& s) {
  return bf16_images_per_chunk(s.n, s.out_h(), s.out_w(), s.c_out, dy_padding(s));
}

size_t paired_kernel_floats(int kh, int kw, int64_t c, int64_t c_out) {
  return AlignedBuffer::round_up(kh * kernel_row_weights(kw * c, 2) * c_out);
}

size_t bf16_forward_workspace_floats(const Conv2dShape& s) {
  return paired_kernel_floats(s.kh, s.kw, s.group_in(), s.c_out) +
         bf16_padded_floats(bf16_input_chunk(s), s.h, s.w, s.c_in, s.pad_h);
}

size_t bf16_backward_data_workspace_floats(const Conv2dShape& s) {
  return paired_kernel_floats(s.kh, s.kw, s.group_out(), s.c_in) +
         bf16_padded_floats(bf16_dy_chunk(s), s.out_h(), s.out_w(), s.c_out, dy_padding(s));
}

TapSums tap_sums(const Conv2dShape& s) {
  const TapRuns taps = tap_runs(s.kw, s.c_in, s.groups);
  const int64_t vectors = (taps.run + kLanes - 1) / kLanes;
  return {taps, vectors, (vectors + kTapVectors - 1) / kTapVectors};
}

WeightPassScratch bf16_weight_scratch(const Conv2dShape& s, int images) {
  if (conv2d_tap_tiles_suit(s, Precision::kBFloat16)) {
    const int64_t x_image = int64_t{s.h} * s.w * s.c_in;
    return {AlignedBuffer::round_up(tap_sums(s).floats(s)),
            AlignedBuffer::round_up((images * x_image + 1) / 2), 0,
            AlignedBuffer::round_up(int64_t{images} * s.out_h() * ((s.out_w() + 1) / 2) * s.c_out)};
  }
  const int64_t hp = s.h + 2 * s.pad_h, wp = s.w + 2 * s.pad_w;
  return {0, bf16_padded_floats(images, s.h, s.w, s.c_in, s.pad_h),
          AlignedBuffer::round_up(images * hp * wp * s.c_in),
          AlignedBuffer::round_up(int64_t{images} * s.out_h() * ((s.out_w() + 1) / 2) * s.c_out)};
}

int bf16_weight_chunk(const Conv2dShape& s) {
  const WeightPassScratch one = bf16_weight_scratch(s, 1);
  const size_t per_image = one.total() - one.sums;
  return static_cast<int>(std::clamp<int64_t>(2 * kPaddedChunkFloats / per_image, 1, s.n));
}

}  // namespace direct

size_t conv2d_direct_workspace_floats(const Conv2dShape& s) {
  size_t floats = 0;
  if (conv2d_direct_suits(s, Precision::kFloat32) ||
      conv2d_direct_backward_weight_suits(s, Precision::kFloat32)) {
    floats = direct::forward_workspace_floats(
        s);  // the padded input, as the backward-weight pads it too
  }
  if (conv2d_direct_backward_data_suits(s, Precision::kFloat32)) {
    floats = std::max(floats, direct::backward_data_workspace_floats(s));
  }
  if (conv2d_direct_suits(s, Precision::kBFloat16)) {
    floats = std::max(floats, direct::bf16_forward_workspace_floats(s));
  }
  if (conv2d_direct_backward_data_suits(s, Precision::kBFloat16)) {
    floats = std::max(floats, direct::bf16_backward_data_workspace_floats(s));
  }
  if (conv2d_direct_backward_weight_suits(s, Precision::kBFloat16)) {
    floats = std::max(floats, direct::bf16_weight_scratch(s, direct::bf16_weight_chunk(s)).total());
  }
  return floats;
}

}  // namespace xtrain::kernels
