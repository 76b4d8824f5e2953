// Hardswish and Hardsigmoid: finite-difference gradient checks over inputs on all three pieces of
// each function.
#include "lib/nn/hard_activation.h"

#include <gtest/gtest.h>

#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

// kDistinct over 240 elements spans [-6, 6) in steps of 0.05 offset by 0.0125, so no input lies
// within a step (1e-2) of the kinks at -3 and 3: a backward with the wrong slope on any piece
// fails.
void check_gradients(HardActivation::Kind kind) {
  HardActivation layer("activation", kind);
  testing::GradCheckOptions options;
  options.inputs = testing::InputValues::kDistinct;
  check_layer_gradients(layer, {Shape{2, 4, 5, 6}}, options);
}

TEST(Hardswish, GradientsMatchFiniteDifferences) {
  check_gradients(HardActivation::Kind::kHardswish);
}

TEST(Hardsigmoid, GradientsMatchFiniteDifferences) {
  check_gradients(HardActivation::Kind::kHardsigmoid);
}

}  // namespace
}  // namespace xtrain
