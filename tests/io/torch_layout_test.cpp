#include "lib/io/torch_layout.h"

#include <gtest/gtest.h>

#include "lib/nn/batchnorm2d.h"
#include "lib/nn/conv2d.h"
#include "lib/nn/linear.h"
#include "lib/nn/pointwise_linear.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

TEST(TorchLayout, OnlyConvAndPointwiseLinearWeightsChangeLayout) {
  const Conv2d conv("conv", 3, 8, 5, 1, 2, /*bias=*/true);
  const std::vector<ParamSpec> conv_specs = conv.param_specs();
  EXPECT_EQ(torch_layout(conv, conv_specs[0]), TorchLayout::kConvOIHW);
  EXPECT_EQ(torch_shape(TorchLayout::kConvOIHW, conv_specs[0].shape),
            (std::vector<int64_t>{8, 3, 5, 5}));
  EXPECT_EQ(torch_layout(conv, conv_specs[1]), TorchLayout::kSame);  // bias [C_out]

  // nn.Linear's weight is [out, in] here as in PyTorch.
  const Linear fc("fc", 12, 5);
  const ParamSpec fc_weight = fc.param_specs()[0];
  EXPECT_EQ(torch_layout(fc, fc_weight), TorchLayout::kSame);
  EXPECT_EQ(torch_shape(TorchLayout::kSame, fc_weight.shape), (std::vector<int64_t>{5, 12}));

  // A Linear over NHWC channels keeps a 1x1 convolution's weight, Linear's [out, in] in PyTorch.
  const PointwiseLinear pointwise("block.3", 12, 48);
  const std::vector<ParamSpec> pointwise_specs = pointwise.param_specs();
  EXPECT_EQ(torch_layout(pointwise, pointwise_specs[0]), TorchLayout::kPointwiseLinear);
  EXPECT_EQ(torch_shape(TorchLayout::kPointwiseLinear, pointwise_specs[0].shape),
            (std::vector<int64_t>{48, 12}));
  EXPECT_EQ(torch_layout(pointwise, pointwise_specs[1]), TorchLayout::kSame);  // bias [out]

  const BatchNorm2d bn("bn", 4);
  for (const ParamSpec& spec : bn.param_specs()) {
    EXPECT_EQ(torch_layout(bn, spec), TorchLayout::kSame) << spec.name;
  }
}

TEST(TorchLayout, ConvWeightsGoToOIHWAndBack) {
  const Shape ours{3, 2, 4, 5};  // KH, KW, C_in, C_out
  const std::vector<float> x = testing::random_floats(ours.numel(), 3);
  std::vector<float> torch(x.size()), back(x.size());
  to_torch(TorchLayout::kConvOIHW, ours, x.data(), torch.data());
  // ours [y=2][x=1][i=3][o=4] is PyTorch's [o=4][i=3][y=2][x=1]
  EXPECT_EQ(torch[((4 * 4 + 3) * 3 + 2) * 2 + 1], x[((2 * 2 + 1) * 4 + 3) * 5 + 4]);
  EXPECT_EQ(torch[((1 * 4 + 0) * 3 + 0) * 2 + 1], x[((0 * 2 + 1) * 4 + 0) * 5 + 1]);
  from_torch(TorchLayout::kConvOIHW, ours, torch.data(), back.data());
  EXPECT_EQ(back, x);
}

TEST(TorchLayout, PointwiseLinearWeightsGoToOutByInAndBack) {
  const Shape ours{1, 1, 4, 5};  // in, out
  const std::vector<float> x = testing::random_floats(ours.numel(), 4);
  std::vector<float> torch(x.size()), back(x.size());
  to_torch(TorchLayout::kPointwiseLinear, ours, x.data(), torch.data());
  for (int i = 0; i < 4; ++i) {
    for (int o = 0; o < 5; ++o) EXPECT_EQ(torch[o * 4 + i], x[i * 5 + o]);
  }
  from_torch(TorchLayout::kPointwiseLinear, ours, torch.data(), back.data());
  EXPECT_EQ(back, x);
}

}  // namespace
}  // namespace xtrain
