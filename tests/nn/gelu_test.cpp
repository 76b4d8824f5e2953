// GELU: a finite-difference gradient check over inputs on both sides of its bend.
#include "lib/nn/gelu.h"

#include <gtest/gtest.h>

#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

// kDistinct over 240 elements spans [-6, 6): the flat tail, the dip below zero and the
// near-identity side.
TEST(GELU, GradientsMatchFiniteDifferences) {
  GELU layer("gelu");
  testing::GradCheckOptions options;
  options.inputs = testing::InputValues::kDistinct;
  check_layer_gradients(layer, {Shape{2, 4, 5, 6}}, options);
}

}  // namespace
}  // namespace xtrain
