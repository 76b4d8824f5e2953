// Conv2d kernels in bfloat16 against the float32 reference: on inputs already rounded to bfloat16
// as tightly as float32 kernels match it (each product is exact in float32), and on float32
// inputs within the rounding bound; every path a convolution can take (pointwise, strided 1x1,
// the stem, 3x3, rectangular, grouped and banded), and 1 vs 2 threads bitwise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "lib/base/check.h"
#include "lib/kernels/conv2d.h"
#include "lib/kernels/conv2d_direct.h"
#include "lib/kernels/reference/conv2d.h"
#include "lib/tensor/bfloat16.h"
#include "tests/kernels/conv2d_cases.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using kernels::Conv2dShape;
using testing::ConvData;
using testing::ConvOutputs;
using testing::describe;
using testing::expect_bitwise_equal;
using testing::expect_close_to_reference;
using testing::run_fast;
using testing::run_reference;
using testing::to_bfloat16s;

constexpr float kRtol = 1e-4f;  // the float32 kernels' tolerance: the same float32 sums

const Conv2dShape kShapes[] = {
    {2, 5, 7, 3, 4, 3, 3, 1, 1, 1},          // odd channels, an odd patch
    {2, 12, 12, 3, 64, 7, 7, 2, 3, 3},       // a ResNet stem
    {1, 14, 14, 64, 64, 3, 3, 1, 1, 1},      // ResNet 3x3
    {2, 7, 7, 64, 256, 1, 1, 1, 0, 0},       // pointwise, one GEMM
    {2, 7, 7, 320, 64, 1, 1, 1, 0, 0},       // pointwise, one bfloat16 GEMM block of all of k
    {2, 7, 7, 2100, 64, 1, 1, 1, 0, 0},      // pointwise over more than one GEMM block of k
    {2, 8, 8, 32, 48, 1, 1, 2, 0, 0},        // strided 1x1 (a downsample)
    {2, 9, 9, 32, 64, 3, 3, 2, 1, 1},        // strided 3x3: four phases of dx
    {2, 7, 9, 16, 32, 3, 3, 1, 1, 1},        // an odd row of pixels, paired with a zero one
    {2, 9, 11, 8, 16, 1, 7, 1, 0, 3},        // Inception's 1x7
    {1, 9, 9, 128, 128, 3, 3, 2, 1, 1, 32},  // ResNeXt's narrow groups, banded
    {2, 7, 9, 32, 64, 3, 3, 2, 1, 1, 4},     // groups of 8 inputs and 16 outputs
    {2, 7, 9, 12, 96, 3, 3, 1, 1, 1, 4},     // groups of 3 inputs: no direct pairs
    {2, 9, 9, 48, 48, 3, 3, 2, 1, 1, 48},    // depthwise, banded in bfloat16
    {1, 7, 7, 512, 32, 3, 3, 1, 1, 1},       // direct over 512 channels, two rows a tile
    {1, 13, 13, 16, 32, 5, 5, 2, 2, 2},      // two padding rows, dx's phases 7 and 6 wide
    {1, 6, 6, 3, 16, 3, 3, 1, 0, 0},         // odd tap runs, unpadded: a pair past the input
};

void round_all(std::vector<float>& v) {
  for (float& x : v) x = round_to_bfloat16(x);
}

std::vector<float> absolute(std::vector<float> v) {
  for (float& x : v) x = std::fabs(x);
  return v;
}

// got, stored in bfloat16, holds the float32 `unrounded` rounded, bit for bit.
void expect_rounded(const std::vector<BFloat16>& got, const std::vector<float>& unrounded,
                    const char* what) {
  std::vector<float> expected(unrounded.size()), widened(got.size());
  for (size_t i = 0; i < unrounded.size(); ++i) expected[i] = round_to_bfloat16(unrounded[i]);
  for (size_t i = 0; i < got.size(); ++i) widened[i] = to_float(got[i]);
  expect_bitwise_equal(widened, expected, what);
}

TEST(Conv2dBFloat16, RoundedInputsMatchTheReferenceAsTightlyAsFloat32) {
  for (const Conv2dShape& s : kShapes) {
    for (bool with_bias : {false, true}) {
      SCOPED_TRACE(describe(s) + (with_bias ? ", bias" : ""));
      ConvData d(s, 21);
      round_all(d.x);
      round_all(d.weight);
      round_all(d.dy);
      const ConvOutputs fast = run_fast(s, d, with_bias, Exec{}, Precision::kBFloat16);
      const ConvOutputs ref = run_reference(s, d, with_bias);
      expect_close_to_reference(fast.y, ref.y, kRtol, "y");
      expect_close_to_reference(fast.dx, ref.dx, kRtol, "dx");
      expect_close_to_reference(fast.dweight, ref.dweight, kRtol, "dweight");
      expect_close_to_reference(fast.dbias, ref.dbias, kRtol, "dbias");
    }
  }
}

// Tap runs of odd length (kernel rows of 7 x 3 and 3 x 3 taps) end with a pair whose second tap is
// the element after the run, times a zero weight: in the input's padded copy (the stem's, in a
// padding column), or the zero after the copy (the unpadded 3x3's last window). The workspace
// starts as bfloat16 NaNs in both halves of every float, so an element the pass did not write would
// show.
TEST(Conv2dBFloat16, OddTapRunsAddNothingPastTheirEnd) {
  for (const Conv2dShape& s :
       {Conv2dShape{2, 12, 12, 3, 64, 7, 7, 2, 3, 3}, Conv2dShape{1, 6, 6, 3, 16, 3, 3, 1, 0, 0}}) {
    SCOPED_TRACE(describe(s));
    ConvData d(s, 41);
    round_all(d.x);
    round_all(d.weight);
    round_all(d.dy);
    const uint32_t nan_pair = 0x7fc07fc0u;
    float nans;
    std::memcpy(&nans, &nan_pair, sizeof nans);
    std::fill(d.workspace.begin(), d.workspace.end(), nans);
    const ConvOutputs fast = run_fast(s, d, false, Exec{}, Precision::kBFloat16);
    const ConvOutputs ref = run_reference(s, d, false);
    expect_close_to_reference(fast.y, ref.y, kRtol, "y");
  }
}

// bfloat16 keeps 8 significant bits, so each operand rounds to within 2^-8 of itself and each
// product to within 2^-7 of |a b| (2^-8 + 2^-8 + 2^-16): an output is off by at most 2^-7 times
// the sum of its terms' magnitudes (the reference on |x|, |weight|, |dy|), plus the float32 sums'
// rounding.
void expect_within_rounding(const std::vector<float>& fast, const std::vector<float>& exact,
                            const std::vector<float>& magnitudes, const char* what) {
  ASSERT_EQ(fast.size(), exact.size()) << what;
  const float scale = testing::max_abs(exact);
  int failures = 0;
  for (size_t i = 0; i < fast.size() && failures < 5; ++i) {
    const float allowed = std::ldexp(magnitudes[i], -7) + kRtol * scale;
    if (std::fabs(fast[i] - exact[i]) > allowed) {
      ADD_FAILURE() << what << "[" << i << "] = " << fast[i] << ", float32 " << exact[i]
                    << ", allowed error " << allowed;
      ++failures;
    }
  }
}

TEST(Conv2dBFloat16, FloatInputsStayWithinTheRoundingBound) {
  for (const Conv2dShape& s : kShapes) {
    SCOPED_TRACE(describe(s));
    ConvData d(s, 31);
    const ConvOutputs fast = run_fast(s, d, false, Exec{}, Precision::kBFloat16);
    const ConvOutputs exact = run_reference(s, d, false);
    ConvData magnitude = d;  // the same problem on absolute values, gradients from zero
    magnitude.x = absolute(d.x);
    magnitude.weight = absolute(d.weight);
    magnitude.dy = absolute(d.dy);
    const ConvOutputs sums = run_reference(s, magnitude, false);
    std::vector<float> weight_sums(s.patch() * s.c_out, 0.0f);
    kernels::reference::conv2d_backward_weight(s, magnitude.x.data(), magnitude.dy.data(),
                                               weight_sums.data(), nullptr);
    const ConvOutputs prefill = testing::prefilled_outputs(s);  // dweight accumulates onto it
    std::vector<float> dweight_change = fast.dweight, exact_change = exact.dweight;
    for (size_t i = 0; i < dweight_change.size(); ++i) {
      dweight_change[i] -= prefill.dweight[i];
      exact_change[i] -= prefill.dweight[i];
    }
    expect_within_rounding(fast.y, exact.y, sums.y, "y");
    expect_within_rounding(fast.dx, exact.dx, sums.dx, "dx");
    expect_within_rounding(dweight_change, exact_change, weight_sums, "dweight");
  }
}

TEST(Conv2dBFloat16, OneAndTwoThreadsAreBitwiseEqual) {
  testing::PoolExec two(2);
  for (const Conv2dShape& s : {Conv2dShape{2, 28, 28, 64, 64, 3, 3, 1, 1, 1},
                               Conv2dShape{4, 20, 20, 3, 64, 7, 7, 2, 3, 3}}) {
    SCOPED_TRACE(describe(s));
    ConvData d(s, 41);
    testing::expect_outputs_bitwise_equal(run_fast(s, d, true, Exec{}, Precision::kBFloat16),
                                          run_fast(s, d, true, two.exec(), Precision::kBFloat16));
  }
}

// A bfloat16 plan stores the outputs BatchNorm reads in bfloat16: such an output is the float32
// output of the same bfloat16 convolution rounded, bit for bit, on every path (direct with bias
// folded into the tiles, the GEMM's tiles rounded as they are stored or, with a bias or a patch
// deeper than a GEMM block, its float32 products rounded after, im2col, bands), with a bias and
// without.
TEST(Conv2dBFloat16, ABFloat16OutputIsTheFloat32OutputRounded) {
  testing::PoolExec two(2);
  for (const Conv2dShape& s : kShapes) {
    SCOPED_TRACE(describe(s));
    ConvData d(s, 61);
    const float* no_bias = nullptr;
    for (const float* bias : {static_cast<const float*>(d.bias.data()), no_bias}) {
      std::vector<float> y(s.rows() * s.c_out);
      std::vector<BFloat16> rounded(y.size());
      kernels::conv2d_forward(s, d.x.data(), d.weight.data(), bias, y.data(), d.workspace.data(),
                              two.exec(), Precision::kBFloat16);
      kernels::conv2d_forward(s, d.x.data(), d.weight.data(), bias, rounded.data(),
                              d.workspace.data(), two.exec(), Precision::kBFloat16);
      expect_rounded(rounded, y, bias != nullptr ? "y with bias" : "y");
    }
  }
}

// A pointwise layer's dx can be added into another gradient as its one GEMM stores it: a float32
// dx holds its old value plus the float32 sums (one rounding, as adding them after: k within one
// block), a bfloat16 dx that sum rounded once, bit for bit, in both precisions; every other path
// refuses to add.
TEST(Conv2dBFloat16, PointwiseDxAddsIntoAnotherGradient) {
  testing::PoolExec two(2);
  for (const Conv2dShape& s : kShapes) {
    SCOPED_TRACE(describe(s));
    ConvData d(s, 67);
    const std::vector<float> old = testing::random_floats(size_t(s.n) * s.h * s.w * s.c_in, 68);
    auto backward_data = [&](Elements dx, Precision precision, bool add) {
      kernels::conv2d_backward_data(s, d.dy.data(), d.weight.data(), dx, d.workspace.data(),
                                    two.exec(), precision, add);
    };
    EXPECT_EQ(kernels::conv2d_backward_data_adds(s, ElementType::kFloat32), s.is_pointwise());
    EXPECT_EQ(kernels::conv2d_backward_data_adds(s, ElementType::kBFloat16), s.is_pointwise());
    if (!s.is_pointwise()) {
      std::vector<float> dx = old;
      EXPECT_THROW(backward_data(dx.data(), Precision::kFloat32, /*add=*/true), Error);
      continue;
    }
    for (Precision precision : {Precision::kFloat32, Precision::kBFloat16}) {
      std::vector<float> sums(old.size()), added = old;
      backward_data(sums.data(), precision, /*add=*/false);
      backward_data(added.data(), precision, /*add=*/true);
      for (size_t i = 0; i < sums.size(); ++i) sums[i] += old[i];
      expect_bitwise_equal(added, sums, "float32 dx");
    }
    std::vector<BFloat16> added = to_bfloat16s(old);
    std::vector<float> sums(old.size());
    backward_data(sums.data(), Precision::kBFloat16, /*add=*/false);
    for (size_t i = 0; i < sums.size(); ++i) sums[i] += to_float(added[i]);
    backward_data(added.data(), Precision::kBFloat16, /*add=*/true);
    expect_rounded(added, sums, "bfloat16 dx");
  }
}

// A bfloat16 plan stores the BatchNorm outputs convolutions read in bfloat16: reading x so
// gives y and dweight the bits x's values give as floats (the products round x anyway), on every
// path.
TEST(Conv2dBFloat16, ABFloat16InputGivesTheBitsOfItsFloatValues) {
  testing::PoolExec two(2);
  for (const Conv2dShape& s : kShapes) {
    SCOPED_TRACE(describe(s));
    ConvData d(s, 71);
    round_all(d.x);
    const std::vector<BFloat16> x = to_bfloat16s(d.x);
    std::vector<float> y_f32(s.rows() * s.c_out), y_bf16(y_f32.size());
    std::vector<float> dweight_f32(s.patch() * s.c_out, 0.0f), dweight_bf16 = dweight_f32;
    for (const auto& [in, y, dweight] :
         {std::tuple{ConstElements(d.x.data()), &y_f32, &dweight_f32},
          std::tuple{ConstElements(x.data()), &y_bf16, &dweight_bf16}}) {
      kernels::conv2d_forward(s, in, d.weight.data(), d.bias.data(), y->data(), d.workspace.data(),
                              two.exec(), Precision::kBFloat16);
      kernels::conv2d_backward_weight(s, in, d.dy.data(), dweight->data(), nullptr,
                                      d.workspace.data(), two.exec(), Precision::kBFloat16);
    }
    expect_bitwise_equal(y_bf16, y_f32, "y");
    expect_bitwise_equal(dweight_bf16, dweight_f32, "dweight");
  }
}

// A bfloat16 plan keeps the gradients of the values it stores in bfloat16 so too: a bfloat16 dy
// gives dx, dweight and dbias the bits its values give as floats, and a bfloat16 dx is the
// float32 dx rounded, bit for bit, on every path; also where dx is computed a chunk of images at
// a time (the last shape: a pointwise layer over more output channels than the GEMM rounds as it
// stores, one 23x23x1000 image per chunk).
TEST(Conv2dBFloat16, BFloat16GradientsGiveTheBitsOfTheirFloatValues) {
  testing::PoolExec two(2);
  std::vector<Conv2dShape> shapes(std::begin(kShapes), std::end(kShapes));
  shapes.push_back({2, 23, 23, 1000, 2049, 1, 1, 1, 0, 0});
  for (const Conv2dShape& s : shapes) {
    SCOPED_TRACE(describe(s));
    ConvData d(s, 81);
    round_all(d.dy);
    const std::vector<BFloat16> dy = to_bfloat16s(d.dy);
    std::vector<float> dx(int64_t{s.n} * s.h * s.w * s.c_in);
    std::vector<BFloat16> dx_bf16(dx.size());
    d.workspace.resize(kernels::conv2d_workspace_floats(s, ElementType::kBFloat16));
    kernels::conv2d_backward_data(s, d.dy.data(), d.weight.data(), dx.data(), d.workspace.data(),
                                  two.exec(), Precision::kBFloat16);
    kernels::conv2d_backward_data(s, dy.data(), d.weight.data(), dx_bf16.data(), d.workspace.data(),
                                  two.exec(), Precision::kBFloat16);
    expect_rounded(dx_bf16, dx, "dx");
    std::vector<float> dweight_f32(s.patch() * s.c_out, 0.0f), dweight_bf16 = dweight_f32;
    std::vector<float> dbias_f32(s.c_out, 0.0f), dbias_bf16 = dbias_f32;
    kernels::conv2d_backward_weight(s, d.x.data(), d.dy.data(), dweight_f32.data(),
                                    dbias_f32.data(), d.workspace.data(), two.exec(),
                                    Precision::kBFloat16);
    kernels::conv2d_backward_weight(s, d.x.data(), dy.data(), dweight_bf16.data(),
                                    dbias_bf16.data(), d.workspace.data(), two.exec(),
                                    Precision::kBFloat16);
    expect_bitwise_equal(dweight_bf16, dweight_f32, "dweight");
    expect_bitwise_equal(dbias_bf16, dbias_f32, "dbias");
  }
}

// vdpbf16ps on one lane, as gemm_bf16_test models it: acc + hi products, rounded, then + lo
// products, rounded (products of bfloat16 values are exact in float32).
float pair_step(float acc, float x_lo, float dy_lo, float x_hi, float dy_hi) {
  acc += round_to_bfloat16(x_hi) * round_to_bfloat16(dy_hi);
  return acc + round_to_bfloat16(x_lo) * round_to_bfloat16(dy_lo);
}

// The direct bfloat16 backward-weight pass adds to each dweight element, in order, its sums over
// pairs of neighbouring output pixels along each row (an odd row's last pixel paired with zeros),
// to the bit, whichever tile orientation takes the shape: taps in the lanes (up to 32 output
// channels: odd rows, strides, padding of 0 to 3 pixels, kernels wider than the image, one-pixel
// rows, rows of fewer taps than a vector, groups, the stem's 3 channels, tiles whose taps start
// inside a pixel, dy paired by the tiles or by a pass before, rows of more pixels than a tile
// pairs at a time) or channels (64); with x and dy each stored in float32 (the
// pass rounds a copy) or bfloat16 (tap tiles read it in place, masking the padding off).
TEST(Conv2dBFloat16, DirectBackwardWeightSumsPixelPairsInOrder) {
  testing::PoolExec two(2);
  const Conv2dShape shapes[] = {
      {2, 7, 9, 16, 16, 3, 3, 1, 1, 1},   {2, 9, 9, 16, 32, 3, 3, 2, 1, 1},
      {2, 8, 8, 3, 16, 3, 3, 1, 1, 1},    {2, 6, 7, 32, 32, 3, 3, 1, 1, 1, 2},
      {1, 5, 5, 112, 16, 3, 3, 1, 1, 1},  {2, 7, 7, 64, 64, 3, 3, 1, 1, 1},
      {2, 6, 9, 32, 32, 3, 3, 1, 0, 0},   {2, 13, 11, 3, 16, 7, 7, 2, 3, 3},
      {1, 9, 10, 24, 16, 5, 5, 2, 2, 2},  {1, 3, 139, 16, 16, 3, 3, 1, 1, 1},
      {1, 2, 139, 64, 16, 3, 3, 1, 1, 1}, {2, 3, 3, 3, 16, 7, 7, 2, 3, 3},
      {2, 4, 4, 16, 16, 5, 5, 1, 2, 2},   {2, 8, 9, 16, 16, 3, 3, 2, 0, 0},
      {2, 5, 1, 16, 16, 3, 3, 1, 1, 1},   {2, 4, 4, 3, 16, 3, 3, 1, 1, 1},
  };
  for (const Conv2dShape& s : shapes) {
    SCOPED_TRACE(describe(s));
    if (!kernels::conv2d_direct_backward_weight_suits(s, Precision::kBFloat16)) {
      GTEST_SKIP() << "the direct bfloat16 passes need a CPU with AVX512_BF16";
    }
    ConvData d(s, 91);
    const std::vector<BFloat16> x_bf16 = to_bfloat16s(d.x), dy_bf16 = to_bfloat16s(d.dy);
    const std::vector<float> prefilled = testing::prefilled_outputs(s).dweight;
    std::vector<float> model = prefilled;
    const int out_h = s.out_h(), out_w = s.out_w();
    auto x_at = [&](int n, int oh, int ow, int ky, int kx, int c) {
      const int ih = oh * s.stride + ky - s.pad_h, iw = ow * s.stride + kx - s.pad_w;
      if (ow >= out_w || ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) return 0.0f;
      return d.x[((int64_t{n} * s.h + ih) * s.w + iw) * s.c_in + c];
    };
    auto dy_at = [&](int n, int oh, int ow, int co) {
      return ow < out_w ? d.dy[((int64_t{n} * out_h + oh) * out_w + ow) * s.c_out + co] : 0.0f;
    };
    for (int ky = 0; ky < s.kh; ++ky) {
      for (int kx = 0; kx < s.kw; ++kx) {
        for (int ci = 0; ci < s.group_in(); ++ci) {
          for (int co = 0; co < s.c_out; ++co) {
            const int c = co / s.group_out() * s.group_in() + ci;
            float& acc = model[((int64_t{ky} * s.kw + kx) * s.group_in() + ci) * s.c_out + co];
            for (int n = 0; n < s.n; ++n) {
              for (int oh = 0; oh < out_h; ++oh) {
                for (int ow = 0; ow < out_w; ow += 2) {
                  acc = pair_step(acc, x_at(n, oh, ow, ky, kx, c), dy_at(n, oh, ow, co),
                                  x_at(n, oh, ow + 1, ky, kx, c), dy_at(n, oh, ow + 1, co));
                }
              }
            }
          }
        }
      }
    }
    for (const ConstElements x : {ConstElements(d.x.data()), ConstElements(x_bf16.data())}) {
      for (const ConstElements dy : {ConstElements(d.dy.data()), ConstElements(dy_bf16.data())}) {
        SCOPED_TRACE(std::string("x ") + (x.type == ElementType::kBFloat16 ? "bf16" : "f32") +
                     ", dy " + (dy.type == ElementType::kBFloat16 ? "bf16" : "f32"));
        std::vector<float> dweight = prefilled;
        kernels::conv2d_backward_weight(s, x, dy, dweight.data(), nullptr, d.workspace.data(),
                                        two.exec(), Precision::kBFloat16);
        expect_bitwise_equal(dweight, model, "dweight");
      }
    }
  }
}

// The direct passes round a padded copy of a few images at a time: a batch's y and dx are each
// image's alone, bit for bit, and its dweight the images' gradients added in order (pixel pairs
// never straddle two images). 9 images of 62x62x64 take two chunks; the strided layer's dy one
// image a chunk; the backward-weight tap tiles round 9 images of 128x128x16 in two chunks. (Without
// AVX512_BF16 these layers take the GEMM paths: y and dx are still each image's, but the GEMM sums
// dweight over the whole batch's pixels at once.)
TEST(Conv2dBFloat16, DirectPassesChunkTheBatchWithTheSameBits) {
  testing::PoolExec two(2);
  for (const Conv2dShape& s : {Conv2dShape{9, 62, 62, 64, 64, 3, 3, 1, 1, 1},
                               Conv2dShape{3, 90, 90, 16, 256, 3, 3, 2, 1, 1},
                               Conv2dShape{9, 128, 128, 16, 16, 3, 3, 1, 1, 1}}) {
    SCOPED_TRACE(describe(s));
    ConvData d(s, 51);
    const ConvOutputs batch = run_fast(s, d, false, two.exec(), Precision::kBFloat16);
    const ConvOutputs images = testing::run_image_by_image(s, d, two.exec(), Precision::kBFloat16);
    expect_bitwise_equal(batch.y, images.y, "y");
    expect_bitwise_equal(batch.dx, images.dx, "dx");
    if (kernels::conv2d_direct_backward_weight_suits(s, Precision::kBFloat16)) {
      expect_bitwise_equal(batch.dweight, images.dweight, "dweight");
    }
  }
}

}  // namespace
}  // namespace xtrain
