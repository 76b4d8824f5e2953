// SiLU and Sigmoid: finite-difference gradient checks over inputs from the negative tail through
// the bend to the nearly linear part.
#include "lib/nn/smooth_activation.h"

#include <gtest/gtest.h>

#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

// kDistinct over 240 elements spans [-6, 6): both functions' curvature is there.
void check_gradients(SmoothActivation::Kind kind) {
  SmoothActivation layer("activation", kind);
  testing::GradCheckOptions options;
  options.inputs = testing::InputValues::kDistinct;
  check_layer_gradients(layer, {Shape{2, 4, 5, 6}}, options);
}

TEST(SiLU, GradientsMatchFiniteDifferences) { check_gradients(SmoothActivation::Kind::kSiLU); }

TEST(Sigmoid, GradientsMatchFiniteDifferences) {
  check_gradients(SmoothActivation::Kind::kSigmoid);
}

}  // namespace
}  // namespace xtrain
