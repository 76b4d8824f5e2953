// Which implementation runs each pass of a convolution: one ordered list per pass and precision,
// whose first entry with a rule that holds for the shape runs (oneDNN's cpu_convolution_list.cpp
// is the model). The rules are named predicates; the reasons behind them are beside their
// definitions (conv2d_depthwise.cpp, conv2d_direct_rules.cpp, conv2d_bands.h, conv2d_gemm.h). Every
// implementation of a pass takes the arguments of that pass in conv2d.h, so that one list holds
// them; each uses what it needs.
#include "lib/kernels/conv2d.h"

#include <algorithm>

#include "lib/base/check.h"
#include "lib/kernels/conv2d_bands.h"
#include "lib/kernels/conv2d_depthwise.h"
#include "lib/kernels/conv2d_direct.h"
#include "lib/kernels/conv2d_direct_bf16.h"
#include "lib/kernels/conv2d_gemm.h"

namespace xtrain::kernels {
namespace {

using ForwardPass = void(const Conv2dShape& s, ConstElements x, const float* weight,
                         const float* bias, Elements y, float* workspace, const Exec& ex,
                         Precision precision);
using BackwardDataPass = void(const Conv2dShape& s, ConstElements dy, const float* weight,
                              Elements dx, float* workspace, const Exec& ex, Precision precision,
                              bool add);
using BackwardWeightPass = void(const Conv2dShape& s, ConstElements x, ConstElements dy,
                                float* dweight, float* workspace, const Exec& ex,
                                Precision precision);

// An entry of a list: the implementation `run` serves the shapes for which `serves` holds, asked
// in the list's precision.
template <typename Pass>
struct Candidate {
  bool (*serves)(const Conv2dShape& s, Precision precision);
  Pass* run;
};

// ---- The rules not given by the direct kernels (conv2d_direct.h) ----

// Groups narrower than the kernels' vector tiles join into bands, and the banded convolution runs
// through the same list (conv2d_bands.h).
bool groups_join_into_bands(const Conv2dShape& s, Precision) { return band_groups(s) > 1; }

// The direct backward-data pass where it suits s: on groups a vector wide, never ones that join
// into bands. It rounds a bfloat16 dx as it stores its tiles.
bool direct_backward_data(const Conv2dShape& s, Precision precision) {
  return band_groups(s) == 1 && conv2d_direct_backward_data_suits(s, precision);
}

// A pointwise layer's pass is one GEMM over its pixels as rows.
bool pointwise(const Conv2dShape& s, Precision) { return s.is_pointwise(); }

// The GEMM paths take whatever no entry before them does.
bool any_shape(const Conv2dShape&, Precision) { return true; }

// ---- The lists ----
// Entries under AVX512_BF16 exist only in builds for a CPU with it (conv2d_direct_bf16.h).

// Forward, float32. Bands run this list again over the banded shape.
const Candidate<ForwardPass> kForwardFloat32[] = {
    {conv2d_depthwise_suits, conv2d_depthwise_forward},
    {groups_join_into_bands, forward_in_bands},
    {conv2d_direct_suits, conv2d_direct_forward},
    {any_shape, gemm_forward},
};

// Forward, bfloat16.
const Candidate<ForwardPass> kForwardBFloat16[] = {
    {groups_join_into_bands, forward_in_bands},
#if defined(__AVX512BF16__)
    {conv2d_direct_suits, conv2d_direct_bf16_forward},
#endif
    {any_shape, gemm_forward},
};

// Backward-data, float32.
const Candidate<BackwardDataPass> kBackwardDataFloat32[] = {
    {conv2d_depthwise_suits, conv2d_depthwise_backward_data},
    {direct_backward_data, conv2d_direct_backward_data},
    {pointwise, pointwise_backward_data},
    {groups_join_into_bands, backward_data_in_bands},
    {any_shape, col2im_backward_data},
};

// Backward-data, bfloat16, into a float32 dx (the gradient of a float32 value).
const Candidate<BackwardDataPass> kBackwardDataBFloat16[] = {
#if defined(__AVX512BF16__)
    {direct_backward_data, conv2d_direct_bf16_backward_data},
#endif
    {pointwise, pointwise_backward_data},
    {groups_join_into_bands, backward_data_in_bands},
    {any_shape, col2im_backward_data},
};

// Backward-data, bfloat16, into a bfloat16 dx: by the paths that round dx as they store it, else
// in float32 chunks of images (through kBackwardDataBFloat16), each rounded once.
const Candidate<BackwardDataPass> kBackwardDataIntoBFloat16[] = {
#if defined(__AVX512BF16__)
    {direct_backward_data, conv2d_direct_bf16_backward_data},
#endif
    {pointwise_dx_rounded_by_gemm, pointwise_backward_data},
    {any_shape, backward_data_in_float32_chunks},
};

// Backward-weight, float32.
const Candidate<BackwardWeightPass> kBackwardWeightFloat32[] = {
    {conv2d_depthwise_suits, conv2d_depthwise_backward_weight},
    {groups_join_into_bands, backward_weight_in_bands},
    {conv2d_direct_backward_weight_suits, conv2d_direct_backward_weight},
    {any_shape, gemm_backward_weight},
};

// Backward-weight, bfloat16: tap tiles for few output channels, else channel tiles.
const Candidate<BackwardWeightPass> kBackwardWeightBFloat16[] = {
    {groups_join_into_bands, backward_weight_in_bands},
#if defined(__AVX512BF16__)
    {conv2d_tap_tiles_suit, conv2d_tap_tiles_bf16_backward_weight},
    {conv2d_direct_backward_weight_suits, conv2d_direct_bf16_backward_weight},
#endif
    {any_shape, gemm_backward_weight},
};

// The implementation of the first entry of `list` whose rule holds for s (the last one's always
// does).
template <typename Pass>
Pass* first_serving(const Candidate<Pass>* list, const Conv2dShape& s, Precision precision) {
  while (!list->serves(s, precision)) ++list;
  return list->run;
}

// The backward-data list for a dx of dx_type in `precision` (a bfloat16 dx exists only in bfloat16
// precision).
const Candidate<BackwardDataPass>* backward_data_list(ElementType dx_type, Precision precision) {
  if (precision == Precision::kFloat32) return kBackwardDataFloat32;
  return dx_type == ElementType::kBFloat16 ? kBackwardDataIntoBFloat16 : kBackwardDataBFloat16;
}

// The scratch of one call on s with a float32 dx: the largest of any implementation's. A
// depthwise layer runs its own kernels in float32 and bands in bfloat16.
size_t unrounded_workspace_floats(const Conv2dShape& s) {
  const size_t depthwise = conv2d_depthwise_workspace_floats(s);
  // Banded: the banded weight (or its gradient), then the banded convolution's own scratch.
  if (band_groups(s) > 1) {
    return std::max(depthwise, banded_weight_floats(s) + unrounded_workspace_floats(banded(s)));
  }
  return std::max({depthwise, gemm_workspace_floats(s), conv2d_direct_workspace_floats(s)});
}

// Element i of float32 or bfloat16 elements, as a float.
float element(ConstElements e, int64_t i) {
  return e.type == ElementType::kBFloat16 ? to_float(e.bf16()[i]) : e.f32()[i];
}

// dbias += the column sums of dy [rows, c_out], each summed in double over the rows in order.
// Threads own ranges of at least kBiasChannels channels.
void add_bias_gradient(const Conv2dShape& s, ConstElements dy, float* dbias, const Exec& ex) {
  constexpr int64_t kBiasChannels = 8;
  const int64_t m = s.rows();
  parallel_for(
      ex, s.c_out,
      [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; ++c) {
          double sum = 0.0;
          for (int64_t r = 0; r < m; ++r) sum += element(dy, r * s.c_out + c);
          dbias[c] += static_cast<float>(sum);
        }
      },
      kBiasChannels);
}

}  // namespace

size_t conv2d_workspace_floats(const Conv2dShape& s, std::optional<ElementType> dx_type) {
  // Only a bfloat16 plan stores a bfloat16 dx. Where its list sums it in float32 chunks, the
  // scratch holds a chunk's dx and the scratch of the chunk's call.
  if (dx_type != ElementType::kBFloat16 ||
      first_serving(kBackwardDataIntoBFloat16, s, Precision::kBFloat16) !=
          backward_data_in_float32_chunks) {
    return unrounded_workspace_floats(s);
  }
  const Conv2dShape chunk = rounded_dx_chunk(s);
  return std::max(unrounded_workspace_floats(s),
                  dx_floats(chunk) + unrounded_workspace_floats(chunk));
}

void conv2d_forward(const Conv2dShape& s, ConstElements x, const float* weight, const float* bias,
                    Elements y, float* workspace, const Exec& ex, Precision precision) {
  const Candidate<ForwardPass>* list =
      precision == Precision::kFloat32 ? kForwardFloat32 : kForwardBFloat16;
  first_serving(list, s, precision)(s, x, weight, bias, y, workspace, ex, precision);
}

// The one GEMM of a pointwise layer adds C as it stores its tiles, asking for C's lines a tile
// ahead, in less time than a pass summing the two gradients after. A bfloat16 dx exists only in
// bfloat16 plans.
bool conv2d_backward_data_adds(const Conv2dShape& s, ElementType dx_type) {
  return first_serving(backward_data_list(dx_type, Precision::kBFloat16), s,
                       Precision::kBFloat16) == pointwise_backward_data;
}

void conv2d_backward_data(const Conv2dShape& s, ConstElements dy, const float* weight, Elements dx,
                          float* workspace, const Exec& ex, Precision precision, bool add) {
  XTRAIN_CHECK(!add || conv2d_backward_data_adds(s, dx.type),
               "conv2d_backward_data: this layer's dx cannot be added into");
  XTRAIN_CHECK(dx.type == ElementType::kFloat32 || precision == Precision::kBFloat16,
               "conv2d_backward_data: a bfloat16 dx needs bfloat16 precision");
  first_serving(backward_data_list(dx.type, precision), s, precision)(s, dy, weight, dx, workspace,
                                                                      ex, precision, add);
}

void conv2d_backward_weight(const Conv2dShape& s, ConstElements x, ConstElements dy, float* dweight,
                            float* dbias, float* workspace, const Exec& ex, Precision precision) {
  const Candidate<BackwardWeightPass>* list =
      precision == Precision::kFloat32 ? kBackwardWeightFloat32 : kBackwardWeightBFloat16;
  first_serving(list, s, precision)(s, x, dy, dweight, workspace, ex, precision);
  if (dbias != nullptr) add_bias_gradient(s, dy, dbias, ex);
}

}  // namespace xtrain::kernels
