// The direct kernels' float32 passes (conv2d_direct.h): each pads a chunk of images at a time
// into the workspace and sweeps it with Float32Math's register tiles.
#include "lib/kernels/conv2d_direct.h"

#include "lib/base/check.h"
#include "lib/kernels/conv2d_direct_phases.h"
#include "lib/kernels/conv2d_direct_sizes.h"
#include "lib/kernels/conv2d_direct_sweep.h"
#include "lib/kernels/conv2d_direct_tiles.h"
#include "lib/kernels/conv2d_direct_weight.h"

namespace xtrain::kernels {

using direct::backward_weight_pass;
using direct::dy_chunk;
using direct::dy_padding;
using direct::Float32Math;
using direct::for_each_chunk;
using direct::forward_grid;
using direct::input_chunk;
using direct::pad_input;
using direct::PaddedInput;
using direct::phase_kernels;
using direct::phase_kernels_floats;
using direct::sweep;
using direct::sweep_phases;
using direct::zero_untouched_phases;

void conv2d_direct_forward(const Conv2dShape& s, ConstElements x, const float* weight,
                           const float* bias, Elements y, float* workspace, const Exec& ex,
                           Precision precision) {
  const int64_t x_image = int64_t{s.h} * s.w * s.c_in;
  const int64_t y_image = int64_t{s.out_h()} * s.out_w() * s.c_out;
  for_each_chunk(s.n, input_chunk(s), [&](int n0, int images) {
    const PaddedInput<float> in =
        pad_input(x.at(n0 * x_image), images, s.h, s.w, s.c_in, s.pad_h, workspace, ex);
    sweep(forward_grid<Float32Math>(s, in, weight, bias, y.f32() + n0 * y_image, images), ex);
  });
}

void conv2d_direct_backward_data(const Conv2dShape& s, ConstElements dy, const float* weight,
                                 Elements dx_elements, float* workspace, const Exec& ex,
                                 Precision precision, bool add) {
  XTRAIN_CHECK(dx_elements.type == ElementType::kFloat32,
               "a float32 backward-data pass needs a float32 dx");
  float* dx = dx_elements.f32();
  const int pad = dy_padding(s);
  zero_untouched_phases(s, dx, ex);
  // Each phase's kernel, one after the other at the workspace's start; then every chunk of
  // images sweeps each phase.
  phase_kernels<Float32Math>(s, weight, workspace, ex);
  float* padded = workspace + phase_kernels_floats(s);
  const int64_t dy_image = int64_t{s.out_h()} * s.out_w() * s.c_out;
  const int64_t dx_image = int64_t{s.h} * s.w * s.c_in;
  for_each_chunk(s.n, dy_chunk(s), [&](int n0, int images) {
    const PaddedInput<float> in =
        pad_input(dy.at(n0 * dy_image), images, s.out_h(), s.out_w(), s.c_out, pad, padded, ex);
    sweep_phases<Float32Math>(s, in, pad, workspace, s.group_out() * s.c_in, dx + n0 * dx_image,
                              images, ex);
  });
}

void conv2d_direct_backward_weight(const Conv2dShape& s, ConstElements x, ConstElements dy,
                                   float* dweight, float* workspace, const Exec& ex,
                                   Precision precision) {
  XTRAIN_CHECK(dy.type == ElementType::kFloat32,
               "a float32 backward-weight pass needs a float32 dy");
  const int64_t x_image = int64_t{s.h} * s.w * s.c_in;
  const int64_t dy_image = int64_t{s.out_h()} * s.out_w() * s.c_out;
  for_each_chunk(s.n, input_chunk(s), [&](int n0, int images) {
    Conv2dShape chunk = s;
    chunk.n = images;
    const PaddedInput<float> padded =
        pad_input(x.at(n0 * x_image), images, s.h, s.w, s.c_in, s.pad_h, workspace, ex);
    backward_weight_pass<Float32Math>(chunk, padded, dy.f32() + n0 * dy_image, dweight, ex);
  });
}

}  // namespace xtrain::kernels
