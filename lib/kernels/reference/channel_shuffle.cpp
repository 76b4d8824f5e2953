#include "lib/kernels/reference/channel_shuffle.h"

namespace xtrain::kernels::reference {
namespace {

int shuffled(const ChannelShuffleShape& s, int c) {
  const int per_group = s.channels / s.groups;
  return (c % per_group) * s.groups + c / per_group;
}

}  // namespace

void channel_shuffle_forward(const ChannelShuffleShape& s, int first, int width, const float* part,
                             float* y) {
  for (int64_t r = 0; r < s.rows; ++r)
    for (int j = 0; j < width; ++j)
      y[r * s.channels + shuffled(s, first + j)] = part[r * width + j];
}

void channel_shuffle_backward(const ChannelShuffleShape& s, int first, int width, const float* dy,
                              float* dpart) {
  for (int64_t r = 0; r < s.rows; ++r)
    for (int j = 0; j < width; ++j)
      dpart[r * width + j] = dy[r * s.channels + shuffled(s, first + j)];
}

}  // namespace xtrain::kernels::reference
