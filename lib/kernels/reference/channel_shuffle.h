// Plain-loop twin of lib/kernels/channel_shuffle.h, column by column as its formula says.
#pragma once

#include "lib/kernels/channel_shuffle.h"

namespace xtrain::kernels::reference {

void channel_shuffle_forward(const ChannelShuffleShape& s, int first, int width, const float* part,
                             float* y);
void channel_shuffle_backward(const ChannelShuffleShape& s, int first, int width, const float* dy,
                              float* dpart);

}  // namespace xtrain::kernels::reference
