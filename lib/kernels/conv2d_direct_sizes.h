// How the direct passes (conv2d_direct.h) lay out their workspace: the chunks of images they pad
// or copy at a time, and the scratch of each pass in either precision, in floats.
// conv2d_direct_workspace_floats takes the largest a shape needs; each pass lays out its workspace
// by the same functions. Internal to the direct kernels' files.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lib/kernels/conv2d.h"
#include "lib/kernels/conv2d_direct_tiles.h"

namespace xtrain::kernels::direct {

// ---- float32 ----

// Images of x (of dy) a float32 pass pads at a time.
int input_chunk(const Conv2dShape& s);
int dy_chunk(const Conv2dShape& s);

// The forward and backward-weight passes: a chunk of padded x.
size_t forward_workspace_floats(const Conv2dShape& s);

// The backward-data pass: the phases' kernels (phase_kernels_floats), then a chunk of padded dy.
size_t phase_kernels_floats(const Conv2dShape& s);
size_t backward_data_workspace_floats(const Conv2dShape& s);

// ---- bfloat16 ----

// Floats that a bfloat16 copy of n images [h, w, c], padded by `pad`, takes, with a zero after it:
// an odd run's last pair reads one element past the run (BFloat16Math).
size_t bf16_padded_floats(int64_t n, int64_t h, int64_t w, int64_t c, int pad);

// Images of x (of dy) a bfloat16 pass rounds and pads at a time.
int bf16_input_chunk(const Conv2dShape& s);
int bf16_dy_chunk(const Conv2dShape& s);

// Floats a paired kernel of kh x kw taps over c channels into c_out takes.
size_t paired_kernel_floats(int kh, int kw, int64_t c, int64_t c_out);

// The forward pass: the paired kernel, then a chunk of padded x.
size_t bf16_forward_workspace_floats(const Conv2dShape& s);

// The backward-data pass: the phase kernels in pairs (the phases' taps together are the kernel's:
// one paired kernel over group_out channels into c_in), then a chunk of padded dy.
size_t bf16_backward_data_workspace_floats(const Conv2dShape& s);

constexpr int kTapVectors = 3;  // vectors of taps per tap tile

// The shape of the tap tiles' transposed sums: per kernel row, `taps.runs` runs of `vectors` whole
// vectors of taps per output channel.
struct TapSums {
  TapRuns taps;
  int64_t vectors;  // per run
  int64_t blocks;   // tiles along a run
  int64_t row() const { return vectors * kLanes; }
  int64_t floats(const Conv2dShape& s) const { return s.kh * taps.runs * s.c_out * row(); }
};

TapSums tap_sums(const Conv2dShape& s);

// The backward-weight pass's scratch. Tap tiles: their transposed sums, then per chunk of images
// x rounded to bfloat16 where it is float32, and dy's pixel pairs or dy rounded to bfloat16 (where
// the tiles pair it, and it is float32). Channel tiles: per chunk of images x padded and rounded
// to bfloat16 (half a float32 copy, and rounded once instead of converted twice), its pixel
// pairs, dy's pixel pairs.
struct WeightPassScratch {
  size_t sums, x, x_pairs, dy;
  size_t total() const { return sums + x + x_pairs + dy; }
};

WeightPassScratch bf16_weight_scratch(const Conv2dShape& s, int images);

// Images per chunk of the bfloat16 backward-weight pass.
int bf16_weight_chunk(const Conv2dShape& s);

}  // namespace xtrain::kernels::direct
