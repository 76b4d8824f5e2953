// LayerScale: a finite-difference gradient check of the input and the scale, its tensor as
// torchvision's (name, shape, initial value), and its shape checks.
#include "lib/nn/layer_scale.h"

#include <gtest/gtest.h>

#include "lib/base/check.h"
#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

TEST(LayerScale, GradientsMatchFiniteDifferences) {
  LayerScale layer("features.1.0", 5, 1e-6f);
  check_layer_gradients(layer, {Shape{2, 3, 4, 5}}, testing::GradCheckOptions{});
}

TEST(LayerScale, ItsTensorIsTorchvisionsLayerScale) {
  const LayerScale layer("features.1.0", 96, 1e-6f);
  const std::vector<ParamSpec> specs = layer.param_specs();
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].name, "layer_scale");
  EXPECT_EQ(specs[0].shape, (Shape{96, 1, 1}));
  EXPECT_EQ(specs[0].kind, ParamKind::kParameter);
  EXPECT_EQ(specs[0].init, Init::kConstant);
  EXPECT_EQ(specs[0].scale, 1e-6f);
}

TEST(LayerScale, RefusesAnotherChannelCount) {
  const LayerScale layer("features.1.0", 5, 1e-6f);
  EXPECT_EQ(layer.output_shape({Shape{2, 3, 4, 5}}), (Shape{2, 3, 4, 5}));
  EXPECT_THROW(layer.output_shape({Shape{2, 3, 4, 6}}), Error);
  EXPECT_THROW(layer.output_shape({Shape{2, 5}}), Error);
}

}  // namespace
}  // namespace xtrain
