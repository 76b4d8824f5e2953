// ChannelScale kernels: against their reference twin on odd and MobileNetV3 shapes, a hand
// example, dx written over dy, skipped outputs, bfloat16 storage giving the float32 kernels' bits
// rounded once, and 1 vs 2 threads bitwise.
#include <gtest/gtest.h>

#include <vector>

#include "lib/kernels/channel_scale.h"
#include "lib/kernels/reference/channel_scale.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using kernels::ChannelScaleShape;
using testing::expect_bitwise_equal;
using testing::expect_close_to_reference;
using testing::nans;
using testing::random_floats;
using testing::rounded_to_bfloat16;
using testing::to_bfloat16s;
using testing::to_floats;

int64_t size(const ChannelScaleShape& s) { return s.n * s.hw * s.c; }

struct Outputs {
  std::vector<float> y, dx, dscale;
};

Outputs run_fast(const ChannelScaleShape& s, const std::vector<float>& x,
                 const std::vector<float>& scale, const std::vector<float>& dy, const Exec& ex) {
  Outputs o{nans(size(s)), nans(size(s)), nans(s.n * s.c)};
  kernels::channel_scale_forward(s, x.data(), scale.data(), o.y.data(), ex);
  kernels::channel_scale_backward(s, x.data(), scale.data(), dy.data(), o.dx.data(),
                                  o.dscale.data(), ex);
  return o;
}

// Odd shapes (channels off the block of 64 and off the vector width) and MobileNetV3-Small's
// squeeze-and-excitation blocks at 224 px, on two images, on one and two threads.
TEST(ChannelScaleKernel, MatchesReferenceOnOneAndTwoThreads) {
  testing::PoolExec two(2);
  for (const ChannelScaleShape& s :
       {ChannelScaleShape{1, 1, 1}, ChannelScaleShape{3, 5 * 7, 13}, ChannelScaleShape{2, 9, 130},
        ChannelScaleShape{2, 56 * 56, 16}, ChannelScaleShape{2, 14 * 14, 240},
        ChannelScaleShape{2, 7 * 7, 576}}) {
    SCOPED_TRACE("[" + std::to_string(s.n) + ", " + std::to_string(s.hw) + ", " +
                 std::to_string(s.c) + "]");
    const std::vector<float> x = random_floats(size(s), 1), dy = random_floats(size(s), 2),
                             scale = random_floats(s.n * s.c, 3, 0.0f, 1.0f);
    const Outputs fast = run_fast(s, x, scale, dy, Exec{});
    Outputs ref{nans(size(s)), nans(size(s)), nans(s.n * s.c)};
    kernels::reference::channel_scale_forward(s, x.data(), scale.data(), ref.y.data());
    kernels::reference::channel_scale_backward(s, x.data(), scale.data(), dy.data(), ref.dx.data(),
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

// Two images of two pixels and two channels.
TEST(ChannelScaleKernel, HandExample) {
  const ChannelScaleShape s{2, 2, 2};
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8}, scale = {0.5f, 2.0f, -1.0f, 0.25f};
  const std::vector<float> dy = {1, 1, 2, -1, 0, 1, 3, 2};
  const Outputs o = run_fast(s, x, scale, dy, Exec{});
  EXPECT_EQ(o.y, (std::vector<float>{0.5f, 4, 1.5f, 8, -5, 1.5f, -7, 2}));
  EXPECT_EQ(o.dx, (std::vector<float>{0.5f, 2, 1, -2, 0, 0.25f, -3, 0.5f}));
  EXPECT_EQ(o.dscale, (std::vector<float>{1 + 6, 2 - 4, 0 + 21, 6 + 16}));
}

// dx may be written over dy; either output of the backward may be skipped, the other keeping
// its bits.
TEST(ChannelScaleKernel, DxOverDyAndSkippedOutputsKeepTheBits) {
  const ChannelScaleShape s{3, 5 * 7, 130};
  const std::vector<float> x = random_floats(size(s), 4), dy = random_floats(size(s), 5),
                           scale = random_floats(s.n * s.c, 6);
  const Outputs o = run_fast(s, x, scale, dy, Exec{});
  std::vector<float> in_place = dy, dscale = nans(s.n * s.c);
  kernels::channel_scale_backward(s, x.data(), scale.data(), in_place.data(), in_place.data(),
                                  dscale.data(), Exec{});
  expect_bitwise_equal(in_place, o.dx, "dx over dy");
  expect_bitwise_equal(dscale, o.dscale, "dscale beside dx over dy");
  std::vector<float> dx = nans(size(s)), only_dscale = nans(s.n * s.c);
  kernels::channel_scale_backward(s, x.data(), scale.data(), dy.data(), nullptr, only_dscale.data(),
                                  Exec{});
  expect_bitwise_equal(only_dscale, o.dscale, "dscale alone");
  kernels::channel_scale_backward(s, x.data(), scale.data(), dy.data(), dx.data(), nullptr, Exec{});
  expect_bitwise_equal(dx, o.dx, "dx alone");
}

// x, y, dy and dx in bfloat16 (the scale and dscale stay float32): the float32 kernels' bits on
// the same values, y and dx rounded once as they are stored, dscale unchanged.
TEST(ChannelScaleKernel, BFloat16GivesTheFloat32KernelsBitsRounded) {
  const ChannelScaleShape s{2, 9, 130};
  const std::vector<float> x = rounded_to_bfloat16(random_floats(size(s), 7)),
                           dy = rounded_to_bfloat16(random_floats(size(s), 8)),
                           scale = random_floats(s.n * s.c, 9);
  const Outputs o = run_fast(s, x, scale, dy, Exec{});
  const std::vector<BFloat16> x_b = to_bfloat16s(x), dy_b = to_bfloat16s(dy);
  std::vector<BFloat16> y_b = to_bfloat16s(nans(size(s))), dx_b = y_b;
  std::vector<float> dscale = nans(s.n * s.c);
  kernels::channel_scale_forward(s, x_b.data(), scale.data(), y_b.data(), Exec{});
  kernels::channel_scale_backward(s, x_b.data(), scale.data(), dy_b.data(), dx_b.data(),
                                  dscale.data(), Exec{});
  expect_bitwise_equal(to_floats(y_b), rounded_to_bfloat16(o.y), "y");
  expect_bitwise_equal(to_floats(dx_b), rounded_to_bfloat16(o.dx), "dx");
  expect_bitwise_equal(dscale, o.dscale, "dscale");
}

}  // namespace
}  // namespace xtrain
