// torch's channel_shuffle(x, groups) (ShuffleNet) on NHWC rows: each pixel's C channels, seen as
// [groups, C / groups], transposed to [C / groups, groups]:
//   y[r, (c % per_group) * groups + c / per_group] = x[r, c],   per_group = C / groups.
// x may come in parts, the inputs of the concatenation the shuffle follows (ShuffleNetV2 shuffles
// torch.cat of its two branches): a part holds columns [first, first + width) of x as dense rows
// of `width`, so the concatenation is never built. A permutation: nothing to save for backward.
#pragma once

#include <cstdint>

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

struct ChannelShuffleShape {
  int64_t rows;  // N * H * W
  int channels;  // C, of x and y; a multiple of groups
  int groups;
};

// Columns of x in [first, first + width), given as part [rows, width], into their places in y
// [rows, channels]; y's other columns are left alone.
void channel_shuffle_forward(const ChannelShuffleShape& s, int first, int width, const float* part,
                             float* y, const Exec& ex);

// dpart [rows, width] gathers those columns' places from dy [rows, channels]; dpart is
// overwritten.
void channel_shuffle_backward(const ChannelShuffleShape& s, int first, int width, const float* dy,
                              float* dpart, const Exec& ex);

}  // namespace xtrain::kernels
