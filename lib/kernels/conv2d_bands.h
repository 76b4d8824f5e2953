// Narrow groups as bands: a grouped convolution whose groups have fewer output channels than its
// kernels' vector tiles (ResNeXt-50's first stage: 4 per group) runs as a convolution with fewer,
// wider groups, "bands" of b neighbouring groups, whose weights are block-diagonal (zero between
// different groups of a band). That is b times the multiply-adds, but each group fills a vector
// (direct kernels) or the GEMM micro-kernel, which pays: ResNeXt-50's first-stage 3x3 layer, as
// bands of 4 groups on the GEMM, trained 3x faster than with a GEMM per group, and as bands of 2
// on the direct kernels 4x faster again. The zeros add nothing, so results equal the grouped
// convolution's up to the order of rounding.
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

}  // namespace xtrain::kernels
