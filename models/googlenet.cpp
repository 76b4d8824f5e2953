#include "models/googlenet.h"

#include <string>

#include "lib/graph/graph_builder.h"

namespace xtrain {
namespace {

constexpr float kBatchNormEps = 0.001f;
constexpr float kDropout = 0.2f;

// BasicConv2d: <name>.conv (no bias), <name>.bn, ReLU.
Value basic_conv(GraphBuilder& g, const std::string& name, Value x, int out, int kernel_size,
                 int stride = 1, int padding = 0) {
  x = g.conv2d(name + ".conv", x, out, kernel_size, stride, padding);
  return g.batchnorm_relu(name + ".bn", x, kBatchNormEps);
}

// Inception(in, ch1x1, ch3x3red, ch3x3, ch5x5red, ch5x5, pool_proj). Branch 3 is named for a
// 5x5 convolution but torchvision builds a 3x3 one (its documented deviation from the paper,
// kept for its weights).
Value inception(GraphBuilder& g, const std::string& name, Value x, int ch1x1, int ch3x3red,
                int ch3x3, int ch5x5red, int ch5x5, int pool_proj) {
  const Value b1 = basic_conv(g, name + ".branch1", x, ch1x1, 1);
  Value b2 = basic_conv(g, name + ".branch2.0", x, ch3x3red, 1);
  b2 = basic_conv(g, name + ".branch2.1", b2, ch3x3, 3, 1, 1);
  Value b3 = basic_conv(g, name + ".branch3.0", x, ch5x5red, 1);
  b3 = basic_conv(g, name + ".branch3.1", b3, ch5x5, 3, 1, 1);
  Value b4 = g.max_pool2d(name + ".branch4.0", x, 3, 1, 1, /*ceil_mode=*/true);
  b4 = basic_conv(g, name + ".branch4.1", b4, pool_proj, 1);
  return g.concat(name + ".cat", {b1, b2, b3, b4});
}

}  // namespace

std::shared_ptr<const Graph> googlenet(int num_classes) {
  GraphBuilder g(/*input_channels=*/3);
  // trunc_normal_(std=0.01, a=-2, b=2) for every Conv2d and Linear weight; fc keeps nn's bias.
  g.init_convs({WeightInit::Weight::kTruncatedNormal, 0.01f});
  g.init_linears({WeightInit::Weight::kTruncatedNormal, 0.01f});
  Value x = basic_conv(g, "conv1", g.input(), 64, 7, 2, 3);
  x = g.max_pool2d("maxpool1", x, 3, 2, 0, /*ceil_mode=*/true);
  x = basic_conv(g, "conv2", x, 64, 1);
  x = basic_conv(g, "conv3", x, 192, 3, 1, 1);
  x = g.max_pool2d("maxpool2", x, 3, 2, 0, /*ceil_mode=*/true);
  x = inception(g, "inception3a", x, 64, 96, 128, 16, 32, 32);
  x = inception(g, "inception3b", x, 128, 128, 192, 32, 96, 64);
  x = g.max_pool2d("maxpool3", x, 3, 2, 0, /*ceil_mode=*/true);
  x = inception(g, "inception4a", x, 192, 96, 208, 16, 48, 64);
  x = inception(g, "inception4b", x, 160, 112, 224, 24, 64, 64);
  x = inception(g, "inception4c", x, 128, 128, 256, 24, 64, 64);
  x = inception(g, "inception4d", x, 112, 144, 288, 32, 64, 64);
  x = inception(g, "inception4e", x, 256, 160, 320, 32, 128, 128);
  x = g.max_pool2d("maxpool4", x, 2, 2, 0, /*ceil_mode=*/true);
  x = inception(g, "inception5a", x, 256, 160, 320, 32, 128, 128);
  x = inception(g, "inception5b", x, 384, 192, 384, 48, 128, 128);
  x = g.dropout("dropout", g.global_avg_pool_flatten("avgpool", x), kDropout);
  g.linear("fc", x, num_classes);
  return g.finish();
}

}  // namespace xtrain
