// LayerNorm kernels: against their reference twin on odd and ConvNeXt shapes (rows of an NHWC
// map and of a classifier's [N, C]), on one and two threads bitwise, a hand example, dx written
// over dy and skipped, parameter gradients accumulating, and bfloat16 storage giving the float32
// kernels' bits rounded once.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lib/kernels/layer_norm.h"
#include "lib/kernels/reference/layer_norm.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using kernels::LayerNormShape;
using testing::expect_bitwise_equal;
using testing::expect_close_to_reference;
using testing::nans;
using testing::random_floats;
using testing::rounded_to_bfloat16;
using testing::to_bfloat16s;
using testing::to_floats;

int64_t size(const LayerNormShape& s) { return s.m * s.c; }

struct Outputs {
  std::vector<float> y, dx, dweight, dbias;
};

struct Inputs {
  std::vector<float> x, dy, weight, bias;
};

Inputs make_inputs(const LayerNormShape& s, uint32_t seed) {
  // x off zero mean, so a forward that skipped the centring would fail.
  return {random_floats(size(s), seed, -1.0f, 3.0f), random_floats(size(s), seed + 1),
          random_floats(s.c, seed + 2, 0.5f, 1.5f), random_floats(s.c, seed + 3)};
}

Outputs run_fast(const LayerNormShape& s, const Inputs& in, const Exec& ex) {
  Outputs o{nans(size(s)), nans(size(s)), std::vector<float>(s.c, 0.0f),
            std::vector<float>(s.c, 0.0f)};
  std::vector<float> mean = nans(s.m), rstd = nans(s.m);
  std::vector<float> workspace = nans(kernels::layer_norm_workspace_floats(s));
  kernels::layer_norm_forward(s, in.x.data(), in.weight.data(), in.bias.data(), o.y.data(),
                              mean.data(), rstd.data(), ex);
  kernels::layer_norm_backward(s, in.x.data(), in.dy.data(), in.weight.data(), mean.data(),
                               rstd.data(), o.dx.data(), o.dweight.data(), o.dbias.data(),
                               workspace.data(), ex);
  return o;
}

// Odd shapes (one row, rows off the chunk of rows), ConvNeXt-Tiny's stages at 224 px on
// one image, and its classifier's [N, 768] rows.
TEST(LayerNormKernel, MatchesReferenceOnOneAndTwoThreads) {
  testing::PoolExec two(2);
  for (const LayerNormShape& s :
       {LayerNormShape{1, 3, 1e-6f}, LayerNormShape{3, 7, 1e-6f}, LayerNormShape{300, 13, 1e-5f},
        LayerNormShape{56 * 56, 96, 1e-6f}, LayerNormShape{28 * 28, 192, 1e-6f},
        LayerNormShape{7 * 7, 768, 1e-6f}, LayerNormShape{5, 768, 1e-6f}}) {
    SCOPED_TRACE("[" + std::to_string(s.m) + ", " + std::to_string(s.c) + "]");
    const Inputs in = make_inputs(s, 1);
    const Outputs fast = run_fast(s, in, Exec{});
    Outputs ref{nans(size(s)), nans(size(s)), nans(s.c), nans(s.c)};
    kernels::reference::layer_norm_forward(s, in.x.data(), in.weight.data(), in.bias.data(),
                                           ref.y.data());
    kernels::reference::layer_norm_backward(s, in.x.data(), in.dy.data(), in.weight.data(),
                                            ref.dx.data(), ref.dweight.data(), ref.dbias.data());
    expect_close_to_reference(fast.y, ref.y, 1e-5f, "y");
    expect_close_to_reference(fast.dx, ref.dx, 1e-5f, "dx");
    expect_close_to_reference(fast.dweight, ref.dweight, 1e-5f, "dweight");
    expect_close_to_reference(fast.dbias, ref.dbias, 1e-5f, "dbias");
    const Outputs threaded = run_fast(s, in, two.exec());
    expect_bitwise_equal(threaded.y, fast.y, "y, 2 threads");
    expect_bitwise_equal(threaded.dx, fast.dx, "dx, 2 threads");
    expect_bitwise_equal(threaded.dweight, fast.dweight, "dweight, 2 threads");
    expect_bitwise_equal(threaded.dbias, fast.dbias, "dbias, 2 threads");
  }
}

// Two rows of two values: each row becomes -1, 1 before the affine map; a row of equal values
// becomes zeros (its variance is 0, eps keeps it finite).
TEST(LayerNormKernel, HandExample) {
  const LayerNormShape s{2, 2, 0.0f};
  const Inputs in{{1, 3, 10, 6}, {1, 0, 0, 1}, {2, 0.5f}, {0.25f, -1}};
  const Outputs o = run_fast(s, in, Exec{});
  EXPECT_EQ(o.y, (std::vector<float>{-2 + 0.25f, 0.5f - 1, 2 + 0.25f, -0.5f - 1}));
  // xhat is (-1, 1) in the first row and (1, -1) in the second.
  EXPECT_EQ(o.dweight, (std::vector<float>{-1 + 0, 0 + -1}));
  EXPECT_EQ(o.dbias, (std::vector<float>{1, 1}));
  const LayerNormShape flat{1, 3, 1e-6f};
  const Inputs same{{4, 4, 4}, {1, 2, 3}, {1, 1, 1}, {0.5f, 0.5f, 0.5f}};
  EXPECT_EQ(run_fast(flat, same, Exec{}).y, (std::vector<float>{0.5f, 0.5f, 0.5f}));
}

// dx may be written over dy or skipped, the other outputs keeping their bits; the parameter
// gradients add to what they hold.
TEST(LayerNormKernel, DxOverDySkippedAndAccumulatingGradients) {
  const LayerNormShape s{300, 40, 1e-6f};
  const Inputs in = make_inputs(s, 4);
  const Outputs o = run_fast(s, in, Exec{});
  std::vector<float> mean(s.m), rstd(s.m), y(size(s));
  std::vector<float> workspace(kernels::layer_norm_workspace_floats(s));
  kernels::layer_norm_forward(s, in.x.data(), in.weight.data(), in.bias.data(), y.data(),
                              mean.data(), rstd.data(), Exec{});
  std::vector<float> in_place = in.dy, dweight(s.c, 1.0f), dbias(s.c, -1.0f);
  kernels::layer_norm_backward(s, in.x.data(), in_place.data(), in.weight.data(), mean.data(),
                               rstd.data(), in_place.data(), dweight.data(), dbias.data(),
                               workspace.data(), Exec{});
  expect_bitwise_equal(in_place, o.dx, "dx over dy");
  for (int c = 0; c < s.c; ++c) {
    EXPECT_EQ(dweight[c], 1.0f + o.dweight[c]);
    EXPECT_EQ(dbias[c], -1.0f + o.dbias[c]);
  }
  std::vector<float> only_dweight(s.c, 0.0f), only_dbias(s.c, 0.0f);
  kernels::layer_norm_backward(s, in.x.data(), in.dy.data(), in.weight.data(), mean.data(),
                               rstd.data(), nullptr, only_dweight.data(), only_dbias.data(),
                               workspace.data(), Exec{});
  expect_bitwise_equal(only_dweight, o.dweight, "dweight without dx");
  expect_bitwise_equal(only_dbias, o.dbias, "dbias without dx");
}

// x, y, dy and dx in bfloat16 (parameters and statistics stay float32): the float32 kernels' bits
// on the same values, y and dx rounded once as they are stored.
TEST(LayerNormKernel, BFloat16GivesTheFloat32KernelsBitsRounded) {
  const LayerNormShape s{130, 96, 1e-6f};
  Inputs in = make_inputs(s, 7);
  in.x = rounded_to_bfloat16(in.x);
  in.dy = rounded_to_bfloat16(in.dy);
  const Outputs o = run_fast(s, in, Exec{});
  const std::vector<BFloat16> x_b = to_bfloat16s(in.x), dy_b = to_bfloat16s(in.dy);
  std::vector<BFloat16> y_b = to_bfloat16s(nans(size(s))), dx_b = y_b;
  std::vector<float> mean(s.m), rstd(s.m), dweight(s.c, 0.0f), dbias(s.c, 0.0f);
  std::vector<float> workspace(kernels::layer_norm_workspace_floats(s));
  kernels::layer_norm_forward(s, x_b.data(), in.weight.data(), in.bias.data(), y_b.data(),
                              mean.data(), rstd.data(), Exec{});
  kernels::layer_norm_backward(s, x_b.data(), dy_b.data(), in.weight.data(), mean.data(),
                               rstd.data(), dx_b.data(), dweight.data(), dbias.data(),
                               workspace.data(), Exec{});
  expect_bitwise_equal(to_floats(y_b), rounded_to_bfloat16(o.y), "y");
  expect_bitwise_equal(to_floats(dx_b), rounded_to_bfloat16(o.dx), "dx");
  expect_bitwise_equal(dweight, o.dweight, "dweight");
  expect_bitwise_equal(dbias, o.dbias, "dbias");
}

}  // namespace
}  // namespace xtrain
