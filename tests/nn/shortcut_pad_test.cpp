#include "lib/nn/shortcut_pad.h"

#include <gtest/gtest.h>

#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

TEST(ShortcutPad, GradientsMatchFiniteDifferences) {
  ShortcutPad shortcut("layer2.0.shortcut", /*out_channels=*/8, /*stride=*/2);
  check_layer_gradients(shortcut, {Shape{2, 5, 4, 4}}, testing::GradCheckOptions{});
}

TEST(ShortcutPad, HalvesTheGridAndPadsChannels) {
  ShortcutPad shortcut("layer2.0.shortcut", 32, 2);
  EXPECT_EQ(shortcut.output_shape({Shape{2, 32, 32, 16}}), (Shape{2, 16, 16, 32}));
}

}  // namespace
}  // namespace xtrain
