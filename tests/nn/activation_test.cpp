// The element-wise activation layer: finite-difference gradient checks over inputs on every piece
// of the piecewise-linear activations and through the bends of the smooth ones.
#include "lib/nn/activation.h"

#include <gtest/gtest.h>

#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

// kDistinct over 240 elements spans [-6, 6) in steps of 0.05 offset by 0.0125, so no input lies
// within a step (1e-2) of the kinks at -3 and 3: a backward with the wrong slope on any piece
// fails; the smooth activations' curvature is there too.
void check_gradients(kernels::Activation kind) {
  Activation layer("activation", kind);
  testing::GradCheckOptions options;
  options.inputs = testing::InputValues::kDistinct;
  check_layer_gradients(layer, {Shape{2, 4, 5, 6}}, options);
}

TEST(Hardswish, GradientsMatchFiniteDifferences) {
  check_gradients(kernels::Activation::kHardswish);
}

TEST(Hardsigmoid, GradientsMatchFiniteDifferences) {
  check_gradients(kernels::Activation::kHardsigmoid);
}

TEST(SiLU, GradientsMatchFiniteDifferences) { check_gradients(kernels::Activation::kSiLU); }

TEST(Sigmoid, GradientsMatchFiniteDifferences) { check_gradients(kernels::Activation::kSigmoid); }

TEST(GELU, GradientsMatchFiniteDifferences) { check_gradients(kernels::Activation::kGELU); }

// torch's module names, which the profile and the layer listings show.
TEST(Activation, TypesAreTorchsModuleNames) {
  EXPECT_STREQ(Activation("a", kernels::Activation::kHardswish).type(), "Hardswish");
  EXPECT_STREQ(Activation("a", kernels::Activation::kSiLU).type(), "SiLU");
  EXPECT_STREQ(Activation("a", kernels::Activation::kSigmoid).type(), "Sigmoid");
  EXPECT_STREQ(Activation("a", kernels::Activation::kGELU).type(), "GELU");
}

// GELU's values may be stored in bfloat16 (it sits between ConvNeXt's Linear layers); the others'
// stay float32.
TEST(Activation, OnlyGELUReadsAndWritesBFloat16) {
  const Activation gelu("a", kernels::Activation::kGELU), silu("a", kernels::Activation::kSiLU);
  EXPECT_TRUE(gelu.reads_bfloat16(0));
  EXPECT_TRUE(gelu.writes_bfloat16());
  EXPECT_FALSE(silu.reads_bfloat16(0));
  EXPECT_FALSE(silu.writes_bfloat16());
}

}  // namespace
}  // namespace xtrain
