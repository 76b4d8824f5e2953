#include "lib/nn/cross_entropy_loss.h"

#include <gtest/gtest.h>

#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

TEST(CrossEntropyLoss, GradientsMatchFiniteDifferences) {
  CrossEntropyLoss loss("loss", /*label_smoothing=*/0.0f);
  testing::GradCheckOptions options;
  options.loss = true;
  options.num_classes_for_labels = 5;
  options.step = 1e-3f;
  check_layer_gradients(loss, {Shape{4, 5}}, options);
}

TEST(CrossEntropyLoss, GradientsMatchFiniteDifferencesWithLabelSmoothing) {
  CrossEntropyLoss loss("loss", 0.1f);
  testing::GradCheckOptions options;
  options.loss = true;
  options.num_classes_for_labels = 5;
  options.step = 1e-3f;
  check_layer_gradients(loss, {Shape{4, 5}}, options);
}

}  // namespace
}  // namespace xtrain
