#include "lib/nn/cross_entropy_loss.h"

#include <gtest/gtest.h>

#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

void check_gradients(float label_smoothing, float label_mix) {
  CrossEntropyLoss loss("loss", label_smoothing);
  testing::GradCheckOptions options;
  options.loss = true;
  options.num_classes_for_labels = 5;
  options.step = 1e-3f;
  options.label_mix = label_mix;
  check_layer_gradients(loss, {Shape{4, 5}}, options);
}

TEST(CrossEntropyLoss, GradientsMatchFiniteDifferences) { check_gradients(0.0f, 1.0f); }

TEST(CrossEntropyLoss, GradientsMatchFiniteDifferencesWithLabelSmoothing) {
  check_gradients(0.1f, 1.0f);
}

// A batch mixed with itself rolled by one (mixup, CutMix): soft targets.
TEST(CrossEntropyLoss, GradientsMatchFiniteDifferencesWithMixedLabels) {
  check_gradients(0.1f, 0.3f);
}

}  // namespace
}  // namespace xtrain
