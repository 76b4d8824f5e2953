// LayerScale kernels: against their reference twin on odd and ConvNeXt shapes, on one and two
// threads bitwise, a hand example, dx written over dy and skipped, dscale accumulating, and
// bfloat16 storage giving the float32 kernels' bits rounded once.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lib/kernels/layer_scale.h"
#include "lib/kernels/reference/layer_scale.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using kernels::LayerScaleShape;
using testing::expect_bitwise_equal;
using testing::expect_close_to_reference;
using testing::nans;
using testing::random_floats;
using testing::rounded_to_bfloat16;
using testing::to_bfloat16s;
using testing::to_floats;

int64_t size(const LayerScaleShape& s) { return s.m * s.c; }

struct Outputs {
  std::vector<float> y, dx, dscale;
};

Outputs run_fast(const LayerScaleShape& s, const std::vector<float>& x,
                 const std::vector<float>& scale, const std::vector<float>& dy, const Exec& ex) {
  Outputs o{nans(size(s)), nans(size(s)), std::vector<float>(s.c, 0.0f)};
  std::vector<float> workspace = nans(kernels::layer_scale_workspace_floats(s));
  kernels::layer_scale_forward(s, x.data(), scale.data(), o.y.data(), ex);
  kernels::layer_scale_backward(s, x.data(), scale.data(), dy.data(), o.dx.data(), o.dscale.data(),
                                workspace.data(), ex);
  return o;
}

// Odd shapes (rows off the chunk of rows) and ConvNeXt-Tiny's stages at 224 px on two images.
TEST(LayerScaleKernel, MatchesReferenceOnOneAndTwoThreads) {
  testing::PoolExec two(2);
  for (const LayerScaleShape& s :
       {LayerScaleShape{1, 1}, LayerScaleShape{3 * 5 * 7, 13}, LayerScaleShape{2 * 56 * 56, 96},
        LayerScaleShape{2 * 14 * 14, 384}, LayerScaleShape{2 * 7 * 7, 768}}) {
    SCOPED_TRACE("[" + std::to_string(s.m) + ", " + std::to_string(s.c) + "]");
    const std::vector<float> x = random_floats(size(s), 1), dy = random_floats(size(s), 2),
                             scale = random_floats(s.c, 3);
    const Outputs fast = run_fast(s, x, scale, dy, Exec{});
    Outputs ref{nans(size(s)), nans(size(s)), nans(s.c)};
    kernels::reference::layer_scale_forward(s, x.data(), scale.data(), ref.y.data());
    kernels::reference::layer_scale_backward(s, x.data(), scale.data(), dy.data(), ref.dx.data(),
                                             ref.dscale.data());
    expect_bitwise_equal(fast.y, ref.y, "y");  // one float product each
    expect_bitwise_equal(fast.dx, ref.dx, "dx");
    expect_close_to_reference(fast.dscale, ref.dscale, 1e-6f, "dscale");
    const Outputs threaded = run_fast(s, x, scale, dy, two.exec());
    expect_bitwise_equal(threaded.y, fast.y, "y, 2 threads");
    expect_bitwise_equal(threaded.dx, fast.dx, "dx, 2 threads");
    expect_bitwise_equal(threaded.dscale, fast.dscale, "dscale, 2 threads");
  }
}

// Three pixels of two channels.
TEST(LayerScaleKernel, HandExample) {
  const LayerScaleShape s{3, 2};
  const std::vector<float> x = {1, 2, 3, 4, 5, 6}, scale = {0.5f, -2.0f};
  const std::vector<float> dy = {1, 1, 2, -1, 0, 3};
  const Outputs o = run_fast(s, x, scale, dy, Exec{});
  EXPECT_EQ(o.y, (std::vector<float>{0.5f, -4, 1.5f, -8, 2.5f, -12}));
  EXPECT_EQ(o.dx, (std::vector<float>{0.5f, -2, 1, 2, 0, -6}));
  EXPECT_EQ(o.dscale, (std::vector<float>{1 + 6 + 0, 2 - 4 + 18}));
}

// dx may be written over dy or skipped; dscale adds to what it holds.
TEST(LayerScaleKernel, DxOverDySkippedAndAccumulatingGradient) {
  const LayerScaleShape s{300, 40};
  const std::vector<float> x = random_floats(size(s), 4), dy = random_floats(size(s), 5),
                           scale = random_floats(s.c, 6);
  const Outputs o = run_fast(s, x, scale, dy, Exec{});
  std::vector<float> workspace(kernels::layer_scale_workspace_floats(s));
  std::vector<float> in_place = dy, dscale(s.c, 1.0f);
  kernels::layer_scale_backward(s, x.data(), scale.data(), in_place.data(), in_place.data(),
                                dscale.data(), workspace.data(), Exec{});
  expect_bitwise_equal(in_place, o.dx, "dx over dy");
  for (int c = 0; c < s.c; ++c) EXPECT_EQ(dscale[c], 1.0f + o.dscale[c]);
  std::vector<float> only_dscale(s.c, 0.0f);
  kernels::layer_scale_backward(s, x.data(), scale.data(), dy.data(), nullptr, only_dscale.data(),
                                workspace.data(), Exec{});
  expect_bitwise_equal(only_dscale, o.dscale, "dscale without dx");
}

// x, y, dy and dx in bfloat16 (the scale and dscale stay float32): the float32 kernels' bits on
// the same values, y and dx rounded once as they are stored, dscale unchanged.
TEST(LayerScaleKernel, BFloat16GivesTheFloat32KernelsBitsRounded) {
  const LayerScaleShape s{2 * 9, 130};
  const std::vector<float> x = rounded_to_bfloat16(random_floats(size(s), 7)),
                           dy = rounded_to_bfloat16(random_floats(size(s), 8)),
                           scale = random_floats(s.c, 9);
  const Outputs o = run_fast(s, x, scale, dy, Exec{});
  const std::vector<BFloat16> x_b = to_bfloat16s(x), dy_b = to_bfloat16s(dy);
  std::vector<BFloat16> y_b = to_bfloat16s(nans(size(s))), dx_b = y_b;
  std::vector<float> dscale(s.c, 0.0f), workspace(kernels::layer_scale_workspace_floats(s));
  kernels::layer_scale_forward(s, x_b.data(), scale.data(), y_b.data(), Exec{});
  kernels::layer_scale_backward(s, x_b.data(), scale.data(), dy_b.data(), dx_b.data(),
                                dscale.data(), workspace.data(), Exec{});
  expect_bitwise_equal(to_floats(y_b), rounded_to_bfloat16(o.y), "y");
  expect_bitwise_equal(to_floats(dx_b), rounded_to_bfloat16(o.dx), "dx");
  expect_bitwise_equal(dscale, o.dscale, "dscale");
}

}  // namespace
}  // namespace xtrain
