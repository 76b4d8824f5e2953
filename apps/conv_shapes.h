// Convolution layer shapes read from a text file, for bench_conv: one shape a line,
//   N H W C_IN C_OUT K STRIDE PAD GROUPS NAME...
// nine whole numbers (a square K x K kernel, the same padding on every side; H and W are the
// input's) and a name, the rest of the line. Blank lines and text after '#' are ignored.
// apps/bench_conv_shapes.txt is bench_conv's default list: the layers that dominate the models
// scripts/bench trains, and the shapes the kernels' choice rules were decided on.
// Not here: timing the passes (bench_conv.cpp).
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "lib/kernels/conv2d.h"

namespace xtrain {

struct NamedConvShape {
  std::string name;
  kernels::Conv2dShape shape;
};

// The shapes of `in`, in file order. Throws xtrain::Error "FILE:LINE: ..." naming the first line
// that is not a shape (too few numbers, a number out of range, GROUPS not dividing the channels).
std::vector<NamedConvShape> read_conv_shapes(std::istream& in, const std::string& file);

// The same from the file at `path`; an unreadable file is an error naming it.
std::vector<NamedConvShape> read_conv_shapes_file(const std::string& path);

}  // namespace xtrain
