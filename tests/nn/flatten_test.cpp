#include "lib/nn/flatten.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "lib/base/check.h"
#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

// torch.flatten of NCHW: element (c, h, w) of image n lands at c * H * W + h * W + w.
TEST(Flatten, OutputIsInPyTorchsChannelMajorOrder) {
  const int n = 2, h = 3, w = 2, c = 5;
  Flatten flatten("avgpool.flatten", h, w);
  const Shape x_shape{n, h, w, c};
  ASSERT_EQ(flatten.output_shape({x_shape}), (Shape{n, c * h * w}));
  std::vector<float> x(x_shape.numel()), y(x.size());
  std::iota(x.begin(), x.end(), 0.0f);
  LayerCall call;
  call.inputs = {TensorView{x.data(), x_shape}};
  call.output = TensorView{y.data(), Shape{n, c * h * w}};
  flatten.forward(call);
  for (int b = 0; b < n; ++b) {
    for (int i = 0; i < h; ++i) {
      for (int j = 0; j < w; ++j) {
        for (int k = 0; k < c; ++k) {
          EXPECT_EQ(y[((b * c + k) * h + i) * w + j], x[((b * h + i) * w + j) * c + k]);
        }
      }
    }
  }
}

TEST(Flatten, GradientsMatchFiniteDifferences) {
  Flatten flatten("flatten", 3, 4);
  testing::check_layer_gradients(flatten, {Shape{2, 3, 4, 5}}, testing::GradCheckOptions{});
}

TEST(Flatten, OtherSizesThanBuiltForAreErrors) {
  Flatten flatten("avgpool.flatten", 7, 7);
  EXPECT_THROW(flatten.output_shape({Shape{2, 6, 7, 512}}), Error);
  EXPECT_THROW(flatten.output_shape({Shape{2, 49, 512}}), Error);
}

}  // namespace
}  // namespace xtrain
