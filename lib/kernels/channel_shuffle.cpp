#include "lib/kernels/channel_shuffle.h"

#include <algorithm>

#include "lib/kernels/copy_columns.h"

namespace xtrain::kernels {
namespace {

// Calls fn(row, part's column, y's column) for the part's columns of every row in [r0, r1), a
// group at a time: within a group, y's columns step by `groups`.
template <typename Fn>
void for_each_column(const ChannelShuffleShape& s, int first, int width, int64_t r0, int64_t r1,
                     Fn&& fn) {
  const int per_group = s.channels / s.groups;
  const int last = first + width;
  for (int64_t r = r0; r < r1; ++r) {
    for (int g = first / per_group; g * per_group < last; ++g) {
      const int k0 = std::max(first, g * per_group) - g * per_group;
      const int k1 = std::min(last, (g + 1) * per_group) - g * per_group;
      fn(r, g * per_group - first, g, k0, k1);
    }
  }
}

}  // namespace

void channel_shuffle_forward(const ChannelShuffleShape& s, int first, int width, const float* part,
                             float* y, const Exec& ex) {
  parallel_for(
      ex, s.rows,
      [&](int64_t r0, int64_t r1) {
        for_each_column(s, first, width, r0, r1, [&](int64_t r, int col, int g, int k0, int k1) {
          const float* src = part + r * width + col;
          float* dst = y + r * s.channels + g;
          for (int k = k0; k < k1; ++k) dst[k * s.groups] = src[k];
        });
      },
      min_rows_per_chunk(width));
}

void channel_shuffle_backward(const ChannelShuffleShape& s, int first, int width, const float* dy,
                              float* dpart, const Exec& ex) {
  parallel_for(
      ex, s.rows,
      [&](int64_t r0, int64_t r1) {
        for_each_column(s, first, width, r0, r1, [&](int64_t r, int col, int g, int k0, int k1) {
          const float* src = dy + r * s.channels + g;
          float* dst = dpart + r * width + col;
          for (int k = k0; k < k1; ++k) dst[k] = src[k * s.groups];
        });
      },
      min_rows_per_chunk(width));
}

}  // namespace xtrain::kernels
