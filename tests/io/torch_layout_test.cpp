#include "lib/io/torch_layout.h"

#include <gtest/gtest.h>

#include "lib/nn/batchnorm2d.h"
#include "lib/nn/conv2d.h"
#include "lib/nn/linear.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

TEST(TorchLayout, OnlyConvWeightsChangeLayout) {
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

}  // namespace
}  // namespace xtrain
