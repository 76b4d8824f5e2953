// The depthwise Conv2d kernels (conv2d_depthwise.h), through conv2d.h's lists, against the
// plain-loop reference: kernel sizes, strides, paddings, odd maps and channel counts with a tail
// past the last whole vector, batches of several images and MobileNetV2's layers; 1 vs 2 threads
// bitwise, the workspace they are given, and backward-data's `add`.
#include "lib/kernels/conv2d_depthwise.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "lib/kernels/conv2d.h"
#include "lib/kernels/reference/conv2d.h"
#include "lib/kernels/simd.h"
#include "tests/kernels/conv2d_cases.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using kernels::Conv2dShape;
using testing::ConvData;
using testing::ConvOutputs;
using testing::describe;
using testing::expect_close_to_reference;
using testing::run_fast;
using testing::run_reference;

constexpr float kRtol = 1e-4f;  // as the other float32 kernels: float sums against double ones

Conv2dShape depthwise(int n, int h, int w, int c, int k, int stride, int pad) {
  return Conv2dShape{n, h, w, c, c, k, k, stride, pad, pad, /*groups=*/c};
}

void expect_matches_reference(const Conv2dShape& s, bool with_bias, const Exec& ex) {
  SCOPED_TRACE(describe(s) + (with_bias ? ", bias" : ", no bias"));
  ASSERT_TRUE(kernels::conv2d_depthwise_suits(s, Precision::kFloat32));
  ConvData d(s, 13);
  const ConvOutputs fast = run_fast(s, d, with_bias, ex);
  const ConvOutputs ref = run_reference(s, d, with_bias);
  expect_close_to_reference(fast.y, ref.y, kRtol, "y");
  expect_close_to_reference(fast.dx, ref.dx, kRtol, "dx");
  expect_close_to_reference(fast.dweight, ref.dweight, kRtol, "dweight");
  expect_close_to_reference(fast.dbias, ref.dbias, kRtol, "dbias");
}

// 3x3 and 5x5 kernels at strides 1 and 2, padded to keep the map or not at all, on odd maps (a
// stride-2 map with an odd side leaves its last column to one tap) and a map smaller than the
// kernel; channel counts below a vector, a vector and a few, and several vectors and a tail in
// both AVX-512's and AVX2's widths; batches of one to three.
TEST(Conv2dDepthwise, MatchesReferenceOnOddShapes) {
  const int lanes = kernels::simd::kLanes;
  const int channel_counts[] = {1, 3, lanes, lanes + 5, 3 * lanes + 7};
  struct Geometry {
    int n, h, w, k, stride, pad;
  };
  const Geometry geometries[] = {{2, 7, 7, 3, 1, 1}, {3, 9, 11, 3, 2, 1}, {1, 8, 6, 3, 2, 1},
                                 {2, 7, 5, 3, 1, 0}, {2, 9, 9, 5, 1, 2},  {1, 11, 13, 5, 2, 2},
                                 {2, 3, 2, 5, 1, 2}, {1, 5, 7, 5, 2, 0}};
  for (const Geometry& g : geometries) {
    for (int c : channel_counts) {
      for (bool with_bias : {false, true}) {
        expect_matches_reference(depthwise(g.n, g.h, g.w, c, g.k, g.stride, g.pad), with_bias,
                                 Exec{});
      }
    }
  }
}

// A rectangular kernel padded per axis and a stride of 3: the kernels are generic in both.
TEST(Conv2dDepthwise, MatchesReferenceOnRectangularKernels) {
  expect_matches_reference(Conv2dShape{2, 9, 10, 20, 20, 3, 5, 1, 1, 2, /*groups=*/20}, true,
                           Exec{});
  expect_matches_reference(Conv2dShape{1, 11, 10, 24, 24, 5, 3, 3, 2, 0, /*groups=*/24}, false,
                           Exec{});
}

// MobileNetV2's depthwise layers (3x3, padding 1) at batch 1, where their maps shrink: 112x112x32
// at stride 1, 112x112x96 and 56x56x144 at stride 2, 7x7x960, on two threads.
TEST(Conv2dDepthwise, MatchesReferenceOnMobileNetV2Layers) {
  testing::PoolExec two(2);
  for (const Conv2dShape& s :
       {depthwise(1, 112, 112, 32, 3, 1, 1), depthwise(1, 112, 112, 96, 3, 2, 1),
        depthwise(1, 56, 56, 144, 3, 2, 1), depthwise(1, 7, 7, 960, 3, 1, 1)}) {
    expect_matches_reference(s, /*with_bias=*/false, two.exec());
  }
}

// Every output element is summed by one thread in a fixed order, and backward-weight's blocks of
// rows are fixed by the shape: one and two threads give the same bits, with more rows than blocks
// and with fewer.
TEST(Conv2dDepthwise, OneAndTwoThreadsAreBitwiseEqual) {
  testing::PoolExec two(2);
  for (const Conv2dShape& s : {depthwise(3, 29, 31, 40, 3, 2, 1), depthwise(2, 30, 30, 19, 5, 1, 2),
                               depthwise(1, 5, 6, 33, 3, 1, 1)}) {
    SCOPED_TRACE(describe(s));
    ConvData d(s, 7);
    testing::expect_outputs_bitwise_equal(run_fast(s, d, true, Exec{}),
                                          run_fast(s, d, true, two.exec()));
  }
}

// The passes write no further than conv2d_workspace_floats into their workspace, whose size is
// at least the depthwise kernels' own, and read nothing they did not write there: a workspace of
// NaNs followed by guard values gives the reference's results and keeps the guards.
TEST(Conv2dDepthwise, StaysWithinItsWorkspace) {
  for (const Conv2dShape& s : {depthwise(4, 15, 13, 37, 3, 2, 1), depthwise(1, 3, 3, 8, 5, 1, 2)}) {
    SCOPED_TRACE(describe(s));
    const size_t floats = kernels::conv2d_workspace_floats(s);
    EXPECT_GE(floats, kernels::conv2d_depthwise_workspace_floats(s));
    EXPECT_GT(kernels::conv2d_depthwise_workspace_floats(s), 0u);
    ConvData d(s, 17);
    const float kGuard = 12345.0f;
    d.workspace = testing::nans(floats);
    d.workspace.resize(floats + 64, kGuard);
    testing::PoolExec two(2);
    const ConvOutputs fast = run_fast(s, d, true, two.exec());
    const ConvOutputs ref = run_reference(s, d, true);
    expect_close_to_reference(fast.y, ref.y, kRtol, "y");
    expect_close_to_reference(fast.dx, ref.dx, kRtol, "dx");
    expect_close_to_reference(fast.dweight, ref.dweight, kRtol, "dweight");
    for (size_t i = floats; i < d.workspace.size(); ++i) {
      ASSERT_EQ(d.workspace[i], kGuard) << "workspace written at " << i;
    }
  }
}

// With `add`, backward-data adds dx to what the buffer held, bit for bit the same sums.
TEST(Conv2dDepthwise, BackwardDataAddsWhenAsked) {
  const Conv2dShape s = depthwise(2, 9, 7, 21, 3, 2, 1);
  ConvData d(s, 19);
  const size_t dx_floats = size_t(s.n) * s.h * s.w * s.c_in;
  std::vector<float> dx(dx_floats);
  kernels::conv2d_depthwise_backward_data(s, d.dy.data(), d.weight.data(), dx.data(),
                                          d.workspace.data(), Exec{}, Precision::kFloat32,
                                          /*add=*/false);
  const std::vector<float> prefill = testing::random_floats(dx_floats, 23);
  std::vector<float> added = prefill;
  kernels::conv2d_depthwise_backward_data(s, d.dy.data(), d.weight.data(), added.data(),
                                          d.workspace.data(), Exec{}, Precision::kFloat32,
                                          /*add=*/true);
  std::vector<float> expected = prefill;
  for (size_t i = 0; i < dx_floats; ++i) expected[i] += dx[i];
  expect_close_to_reference(added, expected, kRtol, "dx added");
}

// Only depthwise float32 layers: grouped layers with several channels a group, channel
// multipliers (more outputs than inputs) and bfloat16 precision take the other lists' entries.
TEST(Conv2dDepthwise, ServesDepthwiseFloat32Only) {
  const Conv2dShape dw = depthwise(1, 8, 8, 32, 3, 1, 1);
  EXPECT_TRUE(kernels::conv2d_depthwise_suits(dw, Precision::kFloat32));
  EXPECT_FALSE(kernels::conv2d_depthwise_suits(dw, Precision::kBFloat16));
  EXPECT_FALSE(kernels::conv2d_depthwise_suits(Conv2dShape{1, 8, 8, 32, 32, 3, 3, 1, 1, 1, 16},
                                               Precision::kFloat32));
  EXPECT_FALSE(kernels::conv2d_depthwise_suits(Conv2dShape{1, 8, 8, 32, 64, 3, 3, 1, 1, 1, 32},
                                               Precision::kFloat32));
  EXPECT_EQ(
      kernels::conv2d_depthwise_workspace_floats(Conv2dShape{1, 8, 8, 32, 64, 3, 3, 1, 1, 1, 32}),
      0u);
}

}  // namespace
}  // namespace xtrain
