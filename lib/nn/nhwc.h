// Shape checks shared by the layers: activations are NHWC rank-4 tensors.
#pragma once

#include "lib/base/check.h"
#include "lib/tensor/shape.h"

namespace xtrain {

// Throws unless x is [N, H, W, channels] (channels < 0: any count).
inline void check_nhwc(const std::string& layer, const Shape& x, int channels = -1) {
  XTRAIN_CHECK(x.rank() == 4, "{}: expected an NHWC input, got shape {}", layer, x.str());
  XTRAIN_CHECK(channels < 0 || x[3] == channels, "{}: expected {} input channels, got {}", layer,
               channels, x[3]);
}

}  // namespace xtrain
