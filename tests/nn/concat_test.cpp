#include "lib/nn/concat.h"

#include <gtest/gtest.h>

#include "lib/base/check.h"
#include "tests/nn/grad_check.h"

namespace xtrain {
namespace {

// Three inputs of different widths: each gets its own slice of the output's gradient.
TEST(Concat, GradientsMatchFiniteDifferences) {
  Concat cat("Mixed_5b.cat");
  check_layer_gradients(cat, {Shape{2, 3, 2, 2}, Shape{2, 3, 2, 5}, Shape{2, 3, 2, 1}},
                        testing::GradCheckOptions{});
}

TEST(Concat, ChannelsAddUpAndGridsMustAgree) {
  Concat cat("features.3.cat");
  EXPECT_EQ(cat.output_shape({Shape{2, 55, 55, 64}, Shape{2, 55, 55, 64}}),
            (Shape{2, 55, 55, 128}));
  EXPECT_THROW(cat.output_shape({Shape{2, 55, 55, 64}, Shape{2, 54, 55, 64}}), Error);
  EXPECT_THROW(cat.output_shape({Shape{2, 55, 55, 64}, Shape{1, 55, 55, 64}}), Error);
}

// As a part of a concatenation held in place (Inception's nested concatenations): copies into,
// and out of, columns of wider rows.
TEST(Concat, WritesItsOutputAsColumnsOfWiderRows) {
  testing::check_output_in_columns(Concat("Mixed_7b.branch3x3_2.cat"),
                                   {Shape{2, 3, 2, 2}, Shape{2, 3, 2, 5}},
                                   testing::GradCheckOptions{});
}

}  // namespace
}  // namespace xtrain
