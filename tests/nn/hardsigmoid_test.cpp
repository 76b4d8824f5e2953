// Hardsigmoid: a finite-difference gradient check over inputs on all three pieces of the function.
#include "lib/nn/hardsigmoid.h"

#include <gtest/gtest.h>

#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

// kDistinct over 240 elements spans [-6, 6) in steps of 0.05 offset by 0.0125, so no input lies
// within a step (1e-2) of the kinks at -3 and 3: a backward with the wrong slope on any piece
// fails.
TEST(Hardsigmoid, GradientsMatchFiniteDifferences) {
  Hardsigmoid layer("hardsigmoid");
  testing::GradCheckOptions options;
  options.inputs = testing::InputValues::kDistinct;
  check_layer_gradients(layer, {Shape{2, 4, 5, 6}}, options);
}

}  // namespace
}  // namespace xtrain
