// Conv2d kernels against their plain-loop reference on odd shapes and ResNet-50 shapes and against
// Eigen's matrix products tap by tap, 1 vs 2 threads bitwise, and the documented overwrite /
// accumulate contract of each pass.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <string>
#include <vector>

#include "lib/kernels/conv2d.h"
#include "lib/kernels/conv2d_bands.h"
#include "lib/kernels/conv2d_direct.h"
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
using testing::expect_bitwise_equal;
using testing::expect_close_to_reference;
using testing::nans;
using testing::prefilled_outputs;
using testing::random_floats;
using testing::run_fast;
using testing::run_reference;

constexpr float kRtol = 1e-4f;

void expect_matches_reference(const Conv2dShape& s, bool with_bias) {
  SCOPED_TRACE(describe(s) + (with_bias ? ", bias" : ", no bias"));
  ConvData d(s, 11);
  const ConvOutputs fast = run_fast(s, d, with_bias, Exec{});
  const ConvOutputs ref = run_reference(s, d, with_bias);
  expect_close_to_reference(fast.y, ref.y, kRtol, "y");
  expect_close_to_reference(fast.dx, ref.dx, kRtol, "dx");
  expect_close_to_reference(fast.dweight, ref.dweight, kRtol, "dweight");
  expect_close_to_reference(fast.dbias, ref.dbias, kRtol, "dbias");
  if (!with_bias) expect_bitwise_equal(fast.dbias, ref.dbias, "dbias untouched when null");
}

// A second oracle, independent of both the kernels and the reference loops: the convolution as
// Eigen matrix products, one per kernel tap. With X_t the [rows, c_in] input pixels tap t reads
// (zero outside the image) and W_t the tap's [c_in, c_out] weights:
//   y = sum_t X_t W_t + bias,   dW_t = X_t^T dy,   dx = the X_t positions of sum_t dy W_t^T.
ConvOutputs run_eigen(const Conv2dShape& s, const ConvData& d) {
  using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using FloatMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const auto map = [](const std::vector<float>& v, int64_t rows, int64_t cols) {
    return Eigen::Map<const FloatMatrix>(v.data(), rows, cols).cast<double>().eval();
  };
  const Matrix weight = map(d.weight, s.patch(), s.c_out), dy = map(d.dy, s.rows(), s.c_out);
  Matrix y = Matrix::Zero(s.rows(), s.c_out), dx = Matrix::Zero(int64_t{s.n} * s.h * s.w, s.c_in);
  Matrix dweight = map(prefilled_outputs(s).dweight, s.patch(), s.c_out);
  for (int kh = 0; kh < s.kh; ++kh) {
    for (int kw = 0; kw < s.kw; ++kw) {
      // Which input pixel (row of x as [n*h*w, c_in]) each output row reads at this tap; -1: pad.
      std::vector<int64_t> source(s.rows(), -1);
      for (int64_t row = 0; row < s.rows(); ++row) {
        const int64_t n = row / (s.out_h() * s.out_w()), oh = row / s.out_w() % s.out_h();
        const int64_t ih = oh * s.stride - s.pad_h + kh,
                      iw = row % s.out_w() * s.stride - s.pad_w + kw;
        if (ih >= 0 && ih < s.h && iw >= 0 && iw < s.w) source[row] = (n * s.h + ih) * s.w + iw;
      }
      Matrix x_tap = Matrix::Zero(s.rows(), s.c_in);
      for (int64_t row = 0; row < s.rows(); ++row) {
        if (source[row] < 0) continue;
        for (int c = 0; c < s.c_in; ++c) x_tap(row, c) = d.x[source[row] * s.c_in + c];
      }
      const int64_t tap_row =
          (int64_t{kh} * s.kw + kw) * s.c_in;  // weights are [kh, kw, c_in, c_out]
      y += x_tap * weight.middleRows(tap_row, s.c_in);
      dweight.middleRows(tap_row, s.c_in) += x_tap.transpose() * dy;
      const Matrix dx_tap = dy * weight.middleRows(tap_row, s.c_in).transpose();
      for (int64_t row = 0; row < s.rows(); ++row) {
        if (source[row] >= 0) dx.row(source[row]) += dx_tap.row(row);
      }
    }
  }
  const auto to_floats = [](const Matrix& m) {
    const FloatMatrix f = m.cast<float>();
    return std::vector<float>(f.data(), f.data() + f.size());
  };
  return {to_floats(y), to_floats(dx), to_floats(dweight), {}};
}

// Grouped convolutions run on the direct kernels when their groups are one or two vectors of
// output channels, narrower groups first joined into bands that wide (ResNeXt's 3x3 with 4
// channels per group, depthwise), and through im2col and a GEMM per band otherwise: groups a
// vector wide and two vectors wide, strided, grouped 1x1, more outputs than inputs per group,
// groups whose input channels the backward-data kernel cannot take, and groups wider than the
// micro-kernel.
TEST(Conv2dKernel, GroupedMatchesReference) {
  for (const Conv2dShape& s : {Conv2dShape{2, 6, 7, 8, 12, 3, 3, 1, 1, 1, /*groups=*/4},
                               Conv2dShape{1, 9, 9, 128, 128, 3, 3, 2, 1, 1, /*groups=*/32},
                               Conv2dShape{2, 7, 7, 16, 16, 3, 3, 1, 1, 1, /*groups=*/16},
                               Conv2dShape{2, 5, 5, 6, 9, 1, 1, 1, 0, 0, /*groups=*/3},
                               Conv2dShape{2, 9, 10, 64, 64, 3, 3, 1, 1, 1, /*groups=*/8},
                               Conv2dShape{1, 10, 11, 64, 64, 3, 3, 1, 1, 1, /*groups=*/4},
                               Conv2dShape{2, 7, 9, 32, 64, 3, 3, 2, 1, 1, /*groups=*/4},
                               Conv2dShape{2, 5, 6, 32, 32, 1, 1, 1, 0, 0, /*groups=*/4},
                               Conv2dShape{2, 6, 6, 12, 32, 3, 3, 1, 1, 1, /*groups=*/4},
                               Conv2dShape{1, 7, 7, 256, 256, 3, 3, 1, 1, 1, /*groups=*/4}}) {
    expect_matches_reference(s, /*with_bias=*/true);
    expect_matches_reference(s, /*with_bias=*/false);
  }
}

// Groups narrower than a vector join into bands a vector wide when the direct kernels then take
// them, else as wide as the GEMM micro-kernel (two vectors); the band count divides the groups,
// and groups at least that wide run alone.
TEST(Conv2dKernel, NarrowGroupsJoinIntoBands) {
  const int lanes = kernels::simd::kLanes;
  const Conv2dShape resnext_layer1{1, 8, 8, 128, 128, 3, 3, 1, 1, 1, /*groups=*/32};
  EXPECT_EQ(kernels::band_groups(resnext_layer1), lanes / 4);
  EXPECT_EQ(kernels::banded(resnext_layer1).groups, 32 / (lanes / 4));
  EXPECT_EQ(kernels::banded(resnext_layer1).patch(), 9 * lanes);
  EXPECT_TRUE(kernels::conv2d_direct_suits(kernels::banded(resnext_layer1), Precision::kFloat32));
  EXPECT_TRUE(kernels::conv2d_direct_backward_data_suits(kernels::banded(resnext_layer1),
                                                         Precision::kFloat32));
  // Groups of one and two vectors run alone on the direct kernels, wider ones on the GEMM.
  const Conv2dShape one_vector{1, 8, 8, 32 * lanes, 32 * lanes, 3, 3, 1, 1, 1, 32};
  const Conv2dShape four_vectors{1, 8, 8, 128 * lanes, 128 * lanes, 3, 3, 1, 1, 1, 32};
  EXPECT_EQ(kernels::band_groups(one_vector), 1);
  EXPECT_TRUE(kernels::conv2d_direct_suits(one_vector, Precision::kFloat32));
  EXPECT_EQ(kernels::band_groups(four_vectors), 1);
  EXPECT_FALSE(kernels::conv2d_direct_suits(four_vectors, Precision::kFloat32));
  EXPECT_EQ(kernels::band_groups(Conv2dShape{1, 8, 8, 64, 64, 3, 3, 1, 1, 1}), 1);
  // Padded unevenly, the direct kernels decline: bands as wide as the micro-kernel.
  EXPECT_EQ(kernels::band_groups(Conv2dShape{1, 8, 8, 128, 128, 3, 3, 1, 1, 0, 32}), 2 * lanes / 4);
  // 3 channels per group in 4 groups: no band count below 4 divides 4 and is wide enough.
  EXPECT_EQ(kernels::band_groups(Conv2dShape{1, 8, 8, 8, 12, 3, 3, 1, 1, 1, 4}), 4);
}

TEST(Conv2dKernel, MatchesEigenTapByTapProducts) {
  for (const Conv2dShape& s :
       {Conv2dShape{2, 5, 7, 3, 4, 3, 3, 1, 1, 1}, Conv2dShape{1, 9, 9, 5, 6, 3, 3, 2, 1, 1},
        Conv2dShape{2, 8, 8, 3, 8, 7, 7, 2, 3, 3}, Conv2dShape{2, 6, 6, 16, 8, 1, 1, 2, 0, 0},
        Conv2dShape{2, 7, 7, 64, 32, 1, 1, 1, 0, 0}, Conv2dShape{2, 9, 11, 8, 16, 1, 7, 1, 0, 3},
        Conv2dShape{2, 9, 11, 8, 16, 7, 1, 1, 3, 0}}) {
    SCOPED_TRACE(describe(s));
    ConvData d(s, 21);
    const ConvOutputs fast = run_fast(s, d, /*with_bias=*/false, Exec{});
    const ConvOutputs eigen = run_eigen(s, d);
    expect_close_to_reference(fast.y, eigen.y, kRtol, "y");
    expect_close_to_reference(fast.dx, eigen.dx, kRtol, "dx");
    expect_close_to_reference(fast.dweight, eigen.dweight, kRtol, "dweight");
  }
}

// Kernel sizes 1/3/7 with strides 1/2 and paddings 0/1/3, square and rectangular (padded per
// axis, which the direct passes leave to im2col), on 5x7 images with 3 or 13 channels.
TEST(Conv2dKernel, MatchesReferenceOnOddShapes) {
  struct Geometry {
    int kh, kw, stride, pad_h, pad_w;
  };
  // The last six are rectangular, padded per axis: Inception's factorized 7x7 and 3x3 layers.
  const Geometry geometries[] = {{1, 1, 1, 0, 0}, {1, 1, 2, 0, 0}, {3, 3, 1, 1, 1}, {3, 3, 2, 1, 1},
                                 {3, 3, 1, 0, 0}, {7, 7, 2, 3, 3}, {7, 7, 1, 3, 3}, {1, 3, 2, 1, 1},
                                 {1, 7, 1, 0, 3}, {7, 1, 1, 3, 0}, {1, 3, 1, 0, 1}, {3, 1, 1, 1, 0},
                                 {3, 3, 2, 0, 1}, {5, 3, 2, 2, 0}};
  const int channel_pairs[][2] = {{3, 13}, {13, 3}};
  for (const Geometry& g : geometries) {
    for (const auto& c : channel_pairs) {
      const Conv2dShape s{3, 5, 7, c[0], c[1], g.kh, g.kw, g.stride, g.pad_h, g.pad_w};
      for (bool with_bias : {false, true}) expect_matches_reference(s, with_bias);
    }
  }
}

// Shapes the direct kernels take (conv2d_direct.h): few input channels, output channels in whole
// vectors (one and two per tile). Widths 19 and 31 leave partial pixel tiles; c_in = 3 and 16
// leave partial weight tiles. With c_in a vector multiple the backward-data is direct too: one
// phase at stride 1, four at stride 2 (a 1x1 kernel feeds only one, a 4x4 one two taps per
// phase), nine at stride 3. Maps at most half a tile wide take tiles of two output rows (7 rows:
// the last alone; a batch of two: a tile with the last row of one image and the first of the
// next; 5x5 at stride 2: two padding rows at the top and bottom, rows of 7 and 6 in dx's phases;
// 3 wide: two rows a tile with AVX2's 6 pixels too). Tiles skip the edge pixels' kernel columns
// in the padding, at strides 2 and 3 too (tiny maps, kernels wider than them); a kernel 35
// columns wide, past the 32 bits that mark those columns, keeps its padding products.
TEST(Conv2dKernel, MatchesReferenceOnDirectShapes) {
  const Conv2dShape shapes[] = {
      {2, 9, 19, 16, 16, 3, 3, 1, 1, 1},  {2, 9, 19, 16, 32, 3, 3, 1, 1, 1},
      {1, 8, 31, 32, 48, 3, 3, 1, 0, 0},  {2, 11, 19, 16, 32, 3, 3, 2, 1, 1},
      {2, 11, 13, 16, 32, 3, 3, 2, 0, 0}, {2, 14, 15, 16, 32, 1, 1, 2, 0, 0},
      {1, 8, 9, 32, 16, 4, 4, 2, 1, 1},   {1, 13, 11, 16, 16, 5, 5, 3, 2, 2},
      {1, 12, 13, 32, 16, 5, 5, 1, 2, 2}, {2, 23, 21, 3, 64, 7, 7, 2, 3, 3},
      {2, 10, 12, 3, 16, 3, 3, 1, 1, 1},  {1, 7, 7, 32, 32, 3, 3, 1, 1, 1},
      {2, 7, 7, 16, 32, 3, 3, 1, 1, 1},   {1, 13, 13, 16, 32, 5, 5, 2, 2, 2},
      {2, 5, 3, 16, 16, 3, 3, 1, 1, 1},   {1, 3, 3, 16, 16, 7, 7, 2, 3, 3},
      {2, 4, 4, 16, 16, 5, 5, 3, 2, 2},   {1, 4, 40, 16, 16, 3, 35, 1, 17, 17}};
  for (const Conv2dShape& s : shapes) {
    EXPECT_TRUE(kernels::conv2d_direct_suits(s, Precision::kFloat32)) << describe(s);
    EXPECT_EQ(kernels::conv2d_direct_backward_data_suits(s, Precision::kFloat32), s.c_in % 16 == 0)
        << describe(s);
    for (bool with_bias : {false, true}) expect_matches_reference(s, with_bias);
  }
}

// Pointwise layers take the GEMM in every pass, reducing channels or widening them.
TEST(Conv2dKernel, MatchesReferenceOnPointwiseLayers) {
  const Conv2dShape reduce{2, 9, 11, 64, 16, 1, 1, 1, 0, 0}, widen{2, 9, 11, 16, 64, 1, 1, 1, 0, 0};
  for (const Conv2dShape& s : {reduce, widen}) {
    EXPECT_FALSE(kernels::conv2d_direct_suits(s, Precision::kFloat32)) << describe(s);
    EXPECT_FALSE(kernels::conv2d_direct_backward_weight_suits(s, Precision::kFloat32))
        << describe(s);
    for (bool with_bias : {false, true}) expect_matches_reference(s, with_bias);
  }
}

// Wide stride-1 3x3 layers take im2col + GEMM forward and backward-data in float32 (the direct
// kernels in bfloat16, conv2d_bf16_test.cpp), the direct backward-weight (512 input channels at
// 14x14 as VGG's, to 64 to stay quick; an odd width).
TEST(Conv2dKernel, MatchesReferenceOnWideLayers) {
  for (const Conv2dShape& s : {Conv2dShape{1, 14, 14, 512, 64, 3, 3, 1, 1, 1},
                               Conv2dShape{2, 5, 15, 272, 48, 3, 3, 1, 1, 1}}) {
    EXPECT_FALSE(kernels::conv2d_direct_suits(s, Precision::kFloat32)) << describe(s);
    EXPECT_TRUE(kernels::conv2d_direct_backward_weight_suits(s, Precision::kFloat32))
        << describe(s);
    expect_matches_reference(s, /*with_bias=*/true);
  }
}

// Maps narrower than a forward tile over 256 channels or more take the GEMM's backward-weight
// (ResNet-18's layer4: 3x3 512 -> 512 at 7x7, 256 -> 512 stride 2 from 14x14), and its forward
// and backward-data where their tiles would be part empty (a 9-wide map); a 7-wide map fills
// tiles of two rows and keeps the direct ones up to 256 input channels in float32. Narrow
// channels take the direct passes (ResNet-20's last stage: 64 channels at 7x7). AVX-512 tiles
// hold 14 pixels; AVX2's hold 6, so a 7- or 9-wide map is no narrower than one.
TEST(Conv2dKernel, MatchesReferenceOnNarrowMaps) {
  const Conv2dShape seven_wide{1, 14, 14, 256, 512, 3, 3, 2, 1, 1};
  const Conv2dShape nine_wide{1, 9, 9, 256, 32, 3, 3, 1, 1, 1};
  const Conv2dShape deep{1, 7, 7, 512, 512, 3, 3, 1, 1, 1};
  EXPECT_TRUE(kernels::conv2d_direct_suits(seven_wide, Precision::kFloat32));
  EXPECT_FALSE(kernels::conv2d_direct_suits(deep, Precision::kFloat32));
#if defined(__AVX512F__)
  EXPECT_FALSE(kernels::conv2d_direct_suits(nine_wide, Precision::kFloat32));
  for (const Conv2dShape& s : {seven_wide, nine_wide, deep}) {
    EXPECT_FALSE(kernels::conv2d_direct_backward_weight_suits(s, Precision::kFloat32))
        << describe(s);
  }
#endif
  for (const Conv2dShape& s : {seven_wide, nine_wide, deep}) {
    expect_matches_reference(s, /*with_bias=*/false);
  }
  const Conv2dShape narrow_channels{2, 7, 7, 64, 64, 3, 3, 1, 1, 1};
  EXPECT_TRUE(kernels::conv2d_direct_suits(narrow_channels, Precision::kFloat32));
  EXPECT_TRUE(kernels::conv2d_direct_backward_weight_suits(narrow_channels, Precision::kFloat32));
  expect_matches_reference(narrow_channels, /*with_bias=*/false);
}

// layer1.x.conv2 (3x3 over 56x56x64, direct kernels) and layer3.0.downsample.0 (1x1 stride 2
// over 28x28x512), both at batch 1.
TEST(Conv2dKernel, MatchesReferenceOnResNet50Shapes) {
  expect_matches_reference(Conv2dShape{1, 56, 56, 64, 64, 3, 3, 1, 1, 1}, false);
  expect_matches_reference(Conv2dShape{1, 28, 28, 512, 1024, 1, 1, 2, 0, 0}, false);
}

// A pointwise 64 -> 512 layer (on 14x14 to stay quick; one GEMM, whose only workspace is the
// float32 products tile a biased bfloat16 output goes through; its bfloat16 dx comes rounded from
// the GEMM, a product over 512 channels: one bfloat16 block of k), one over 2304 output channels (a
// bfloat16 dx deeper than a block is then summed in a float32 chunk beside it) and a patch so long
// that the im2col buffer holds few rows (several tiles), with bias.
TEST(Conv2dKernel, MatchesReferenceOnPointwiseAndManyTiles) {
  const Conv2dShape pointwise{1, 14, 14, 64, 512, 1, 1, 1, 0, 0};
  EXPECT_EQ(kernels::conv2d_workspace_floats(pointwise), size_t(pointwise.rows()) * 512);
  EXPECT_EQ(kernels::conv2d_workspace_floats(pointwise, ElementType::kBFloat16),
            size_t(pointwise.rows()) * 512);
  expect_matches_reference(pointwise, true);
  const Conv2dShape wide{1, 14, 14, 64, 2304, 1, 1, 1, 0, 0};
  EXPECT_EQ(kernels::conv2d_workspace_floats(wide, ElementType::kBFloat16),
            size_t(wide.rows()) * (64 + 2304));
  expect_matches_reference(wide, true);
  const Conv2dShape long_patch{1, 17, 15, 512, 5, 3, 3, 1, 1, 1};  // 255 rows, 227 per tile
  EXPECT_LT(kernels::conv2d_workspace_floats(long_patch), size_t(long_patch.rows()) * 4608);
  expect_matches_reference(long_patch, true);
}

// Shapes large enough that every parallel_for in the kernels really splits (GEMMs split by rows
// and by columns, col2im and dbias by channels).
const Conv2dShape kThreadSplitShapes[] = {{1, 56, 56, 64, 64, 3, 3, 1, 1, 1},
                                          {1, 28, 28, 512, 1024, 1, 1, 2, 0, 0},
                                          {1, 14, 14, 64, 256, 1, 1, 1, 0, 0},
                                          {3, 9, 11, 19, 37, 3, 3, 2, 1, 1},
                                          {2, 23, 21, 3, 64, 7, 7, 2, 3, 3},
                                          {2, 9, 11, 48, 64, 1, 7, 1, 0, 3},
                                          {2, 9, 11, 192, 64, 7, 1, 1, 3, 0},
                                          {2, 14, 14, 128, 128, 3, 3, 1, 1, 1, /*groups=*/32},
                                          {2, 28, 28, 256, 256, 3, 3, 2, 1, 1, /*groups=*/32},
                                          {2, 28, 28, 96, 96, 3, 3, 2, 1, 1, /*groups=*/96}};

// The documented guarantee (gemm.h): each element is computed by one thread in a fixed chunk,
// so two runs on the same thread count give the same bits.
TEST(Conv2dKernel, RerunsOnTwoThreadsAreBitwiseEqual) {
  testing::PoolExec two(2);
  for (const Conv2dShape& s : kThreadSplitShapes) {
    SCOPED_TRACE(describe(s));
    ConvData d(s, 5);
    testing::expect_outputs_bitwise_equal(run_fast(s, d, true, two.exec()),
                                          run_fast(s, d, true, two.exec()));
  }
}

TEST(Conv2dKernel, OneAndTwoThreadsAgreeWithinTolerance) {
  testing::PoolExec two(2);
  for (const Conv2dShape& s : kThreadSplitShapes) {
    SCOPED_TRACE(describe(s));
    ConvData d(s, 5);
    const ConvOutputs one_thread = run_fast(s, d, true, Exec{});
    const ConvOutputs two_threads = run_fast(s, d, true, two.exec());
    expect_close_to_reference(two_threads.y, one_thread.y, kRtol, "y");
    expect_close_to_reference(two_threads.dx, one_thread.dx, kRtol, "dx");
    expect_close_to_reference(two_threads.dweight, one_thread.dweight, kRtol, "dweight");
    expect_bitwise_equal(two_threads.dbias, one_thread.dbias, "dbias");  // per-channel double sums
  }
}

// conv2d_backward_weight documents "dweight += ..., dbias += ...": a second call adds the same
// gradient again, and a prefilled gradient is kept.
TEST(Conv2dKernel, BackwardWeightAccumulates) {
  for (const Conv2dShape& s :
       {Conv2dShape{3, 5, 7, 3, 13, 3, 3, 2, 1, 1}, Conv2dShape{3, 5, 7, 13, 3, 1, 1, 1, 0, 0},
        Conv2dShape{3, 5, 7, 32, 32, 3, 3, 1, 1, 1, /*groups=*/8}}) {
    SCOPED_TRACE(describe(s));
    ConvData d(s, 21);
    std::vector<float> once(s.patch() * s.c_out, 0.0f), once_bias(s.c_out, 0.0f);
    kernels::conv2d_backward_weight(s, d.x.data(), d.dy.data(), once.data(), once_bias.data(),
                                    d.workspace.data(), Exec{});

    std::vector<float> twice(once.size(), 0.0f), twice_bias(s.c_out, 0.0f);
    for (int call = 0; call < 2; ++call) {
      kernels::conv2d_backward_weight(s, d.x.data(), d.dy.data(), twice.data(), twice_bias.data(),
                                      d.workspace.data(), Exec{});
    }
    std::vector<float> doubled = once, doubled_bias = once_bias;
    for (float& v : doubled) v *= 2.0f;
    for (float& v : doubled_bias) v *= 2.0f;
    expect_close_to_reference(twice, doubled, kRtol, "dweight after two calls");
    expect_close_to_reference(twice_bias, doubled_bias, kRtol, "dbias after two calls");

    const std::vector<float> prefill = random_floats(once.size(), 3, 10.0f, 20.0f);
    const std::vector<float> prefill_bias = random_floats(s.c_out, 4, 10.0f, 20.0f);
    std::vector<float> summed = prefill, summed_bias = prefill_bias;
    kernels::conv2d_backward_weight(s, d.x.data(), d.dy.data(), summed.data(), summed_bias.data(),
                                    d.workspace.data(), Exec{});
    std::vector<float> expected = prefill, expected_bias = prefill_bias;
    for (size_t i = 0; i < expected.size(); ++i) expected[i] += once[i];
    for (int c = 0; c < s.c_out; ++c) expected_bias[c] += once_bias[c];
    expect_close_to_reference(summed, expected, kRtol, "dweight prefilled");
    expect_close_to_reference(summed_bias, expected_bias, kRtol, "dbias prefilled");
  }
}

// The direct passes pad a few images at a time (a few MB of workspace whatever the batch): the
// batch's outputs are each image's alone, bit for bit, and its dweight is the images' gradients
// added in order. A 62x62x64 input pads to a quarter of a chunk per image (chunks of 4 of 9
// images; dy alike); the strided layer's dy pads to over half a chunk per image (chunks of 1, each
// sweeping four phases).
TEST(Conv2dKernel, DirectPassesChunkTheBatchWithTheSameBits) {
  for (const Conv2dShape& s : {Conv2dShape{9, 62, 62, 64, 64, 3, 3, 1, 1, 1},
                               Conv2dShape{3, 90, 90, 16, 256, 3, 3, 2, 1, 1}}) {
    SCOPED_TRACE(describe(s));
    ASSERT_TRUE(kernels::conv2d_direct_suits(s, Precision::kFloat32));
    ASSERT_TRUE(kernels::conv2d_direct_backward_data_suits(s, Precision::kFloat32));
    ASSERT_TRUE(kernels::conv2d_direct_backward_weight_suits(s, Precision::kFloat32));
    Conv2dShape batch_64 = s, batch_128 = s;
    batch_64.n = 64;
    batch_128.n = 128;
    EXPECT_EQ(kernels::conv2d_workspace_floats(batch_64),
              kernels::conv2d_workspace_floats(batch_128));
    testing::PoolExec two(2);
    ConvData d(s, 31);
    const ConvOutputs batch = run_fast(s, d, false, two.exec());

    const ConvOutputs images = testing::run_image_by_image(s, d, two.exec());
    expect_bitwise_equal(batch.y, images.y, "y");
    expect_bitwise_equal(batch.dx, images.dx, "dx");
    expect_bitwise_equal(batch.dweight, images.dweight, "dweight");
  }
}

// A 3x3 all-ones kernel with padding 1 over a 3x3 image of ones counts the taps inside the
// image: 4 at the corners, 6 on the edges, 9 in the middle.
TEST(Conv2dKernel, HandExampleCountsTapsInsideTheImage) {
  const Conv2dShape s{1, 3, 3, 1, 1, 3, 3, 1, 1, 1};
  const std::vector<float> x(9, 1.0f), weight(9, 1.0f);
  const float bias = 0.5f;
  std::vector<float> y = nans(9), workspace(kernels::conv2d_workspace_floats(s));
  kernels::conv2d_forward(s, x.data(), weight.data(), &bias, y.data(), workspace.data(), Exec{});
  EXPECT_EQ(y, (std::vector<float>{4.5f, 6.5f, 4.5f, 6.5f, 9.5f, 6.5f, 4.5f, 6.5f, 4.5f}));
}

}  // namespace
}  // namespace xtrain
