// Narrow groups as bands: a grouped convolution whose groups have fewer output channels than its
// kernels' vector tiles (ResNeXt-50's first stage: 4 per group) runs as a convolution with fewer,
// wider groups, "bands" of b neighbouring groups, whose weights are block-diagonal (zero between
// different groups of a band). That is b times the multiply-adds, but each group fills a vector
// (direct kernels) or the GEMM micro-kernel: a GEMM per narrow group would leave most of each
// micro-kernel idle, and the banded products run far faster, on the direct kernels faster again.
// The zeros add nothing, so results equal the grouped convolution's up to the order of rounding.
#pragma once

#include <cstddef>

#include "lib/kernels/conv2d.h"

namespace xtrain::kernels {

// Groups per band: 1 (no banding) unless the groups are narrower than a micro-kernel's width.
int band_groups(const Conv2dShape& s);

// The banded convolution: the same channels in groups / band_groups(s) groups.
Conv2dShape banded(const Conv2dShape& s);

// Floats of the banded weight [KH, KW, C_in / banded groups, C_out].
size_t banded_weight_floats(const Conv2dShape& s);

// banded = weight spread block-diagonally over each band, zeros elsewhere (overwritten).
void expand_to_bands(const Conv2dShape& s, const float* weight, float* banded);

// dweight += the block-diagonal part of banded_dweight (the rest is gradient of the zeros).
void add_band_diagonals(const Conv2dShape& s, const float* banded_dweight, float* dweight);

// The passes of conv2d.h over the banded convolution, whose weight (or its gradient) takes the
// workspace's first banded_weight_floats(s) floats, its own scratch the rest. Each has the
// arguments of its pass in conv2d.h; backward_weight_in_bands leaves dbias to its caller.
void forward_in_bands(const Conv2dShape& s, ConstElements x, const float* weight, const float* bias,
                      Elements y, float* workspace, const Exec& ex, Precision precision);
void backward_data_in_bands(const Conv2dShape& s, ConstElements dy, const float* weight,
                            Elements dx, float* workspace, const Exec& ex, Precision precision,
                            bool add);
void backward_weight_in_bands(const Conv2dShape& s, ConstElements x, ConstElements dy,
                              float* dweight, float* workspace, const Exec& ex,
                              Precision precision);

}  // namespace xtrain::kernels
