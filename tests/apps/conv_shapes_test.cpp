// bench_conv's shapes files: nine numbers and a name a line, comments ignored, and one line
// naming the file, the line and the field for anything else. The default file reads whole.
#include "apps/conv_shapes.h"

#include <gtest/gtest.h>

#include <sstream>

#include "lib/base/check.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

std::vector<NamedConvShape> read(const std::string& text) {
  std::istringstream in(text);
  return read_conv_shapes(in, "shapes.txt");
}

std::string shapes_error(const std::string& text) {
  return testing::error_of([&] { read(text); });
}

TEST(ConvShapes, NineNumbersAndTheRestOfTheLineAsName) {
  const std::vector<NamedConvShape> shapes = read(
      "# N H W C_IN C_OUT K STRIDE PAD GROUPS NAME\n"
      "\n"
      " 32 224 224 3 64 7 2 3 1  resnet18 conv1 b32   # the stem\n"
      "16 56 56 128 128 3 1 1 32 resnext50 layer1\n");
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_EQ(shapes[0].name, "resnet18 conv1 b32");
  const kernels::Conv2dShape& stem = shapes[0].shape;
  EXPECT_EQ(stem.n, 32);
  EXPECT_EQ(stem.h, 224);
  EXPECT_EQ(stem.w, 224);
  EXPECT_EQ(stem.c_in, 3);
  EXPECT_EQ(stem.c_out, 64);
  EXPECT_EQ(stem.kh, 7);
  EXPECT_EQ(stem.kw, 7);
  EXPECT_EQ(stem.stride, 2);
  EXPECT_EQ(stem.pad_h, 3);
  EXPECT_EQ(stem.pad_w, 3);
  EXPECT_EQ(stem.groups, 1);
  EXPECT_EQ(shapes[1].name, "resnext50 layer1");
  EXPECT_EQ(shapes[1].shape.groups, 32);
}

TEST(ConvShapes, AMistakeNamesTheFileLineAndField) {
  EXPECT_EQ(shapes_error("# a comment\n32 56 56 64 x 1 1 0 1 name\n"),
            "shapes.txt:2: expected N H W C_IN C_OUT K STRIDE PAD GROUPS NAME, C_OUT is not a "
            "whole number from 1 to 65536");
  EXPECT_EQ(shapes_error("32 56 56 64 64 1 1 -1 1 name\n"),
            "shapes.txt:1: expected N H W C_IN C_OUT K STRIDE PAD GROUPS NAME, PAD is not a whole "
            "number from 0 to 65536");
  EXPECT_EQ(shapes_error("32 56 56 64 64 1 1 0\n"),
            "shapes.txt:1: expected N H W C_IN C_OUT K STRIDE PAD GROUPS NAME, GROUPS is not a "
            "whole number from 1 to 65536");
  EXPECT_EQ(shapes_error("32 56 56 64 64 1 1 0 1\n"), "shapes.txt:1: the shape has no name");
  EXPECT_EQ(shapes_error("16 56 56 128 96 3 1 1 64 name\n"),
            "shapes.txt:1: GROUPS 64 must divide C_IN 128 and C_OUT 96");
  EXPECT_EQ(shapes_error("1 2 2 8 8 7 1 2 1 name\n"),
            "shapes.txt:1: the 7x7 kernel is larger than the padded 2x2 input");
}

TEST(ConvShapes, TheDefaultFileReads) {
  const std::vector<NamedConvShape> shapes =
      read_conv_shapes_file(std::string(XTRAIN_SOURCE_DIR) + "/apps/bench_conv_shapes.txt");
  EXPECT_GE(shapes.size(), 13u);
  EXPECT_THROW(read_conv_shapes_file("/nonexistent/shapes.txt"), Error);
}

}  // namespace
}  // namespace xtrain
