#include "models/inception.h"

#include <string>

#include "lib/graph/graph_builder.h"

namespace xtrain {
namespace {

constexpr float kBatchNormEps = 0.001f;

struct Kernel {
  int h, w;
  int stride = 1;
  int pad_h = 0, pad_w = 0;
};

constexpr Kernel k1x1{1, 1};
constexpr Kernel k3x3{3, 3};
constexpr Kernel k3x3_same{3, 3, 1, 1, 1};
constexpr Kernel k3x3_stride2{3, 3, 2};
constexpr Kernel k5x5_same{5, 5, 1, 2, 2};
constexpr Kernel k1x7_same{1, 7, 1, 0, 3};
constexpr Kernel k7x1_same{7, 1, 1, 3, 0};
constexpr Kernel k1x3_same{1, 3, 1, 0, 1};
constexpr Kernel k3x1_same{3, 1, 1, 1, 0};

// BasicConv2d: <name>.conv (no bias), <name>.bn, ReLU.
Value basic_conv(GraphBuilder& g, const std::string& name, Value x, int out, Kernel k) {
  x = g.conv2d_rect(name + ".conv", x, out, k.h, k.w, k.stride, k.pad_h, k.pad_w);
  return g.batchnorm_relu(name + ".bn", x, kBatchNormEps);
}

// F.avg_pool2d(x, 3, stride=1, padding=1) then a 1x1 BasicConv2d: every Mixed block but B and D.
Value pool_branch(GraphBuilder& g, const std::string& name, Value x, int out) {
  return basic_conv(g, name + ".branch_pool", g.avg_pool2d(name + ".avg_pool", x, 3, 1, 1), out,
                    k1x1);
}

Value inception_a(GraphBuilder& g, const std::string& name, Value x, int pool_features) {
  const Value b1 = basic_conv(g, name + ".branch1x1", x, 64, k1x1);
  Value b5 = basic_conv(g, name + ".branch5x5_1", x, 48, k1x1);
  b5 = basic_conv(g, name + ".branch5x5_2", b5, 64, k5x5_same);
  Value b3 = basic_conv(g, name + ".branch3x3dbl_1", x, 64, k1x1);
  b3 = basic_conv(g, name + ".branch3x3dbl_2", b3, 96, k3x3_same);
  b3 = basic_conv(g, name + ".branch3x3dbl_3", b3, 96, k3x3_same);
  return g.concat(name + ".cat", {b1, b5, b3, pool_branch(g, name, x, pool_features)});
}

Value inception_b(GraphBuilder& g, const std::string& name, Value x) {
  const Value b3 = basic_conv(g, name + ".branch3x3", x, 384, k3x3_stride2);
  Value d = basic_conv(g, name + ".branch3x3dbl_1", x, 64, k1x1);
  d = basic_conv(g, name + ".branch3x3dbl_2", d, 96, k3x3_same);
  d = basic_conv(g, name + ".branch3x3dbl_3", d, 96, k3x3_stride2);
  return g.concat(name + ".cat", {b3, d, g.max_pool2d(name + ".max_pool", x, 3, 2, 0)});
}

Value inception_c(GraphBuilder& g, const std::string& name, Value x, int c7) {
  const Value b1 = basic_conv(g, name + ".branch1x1", x, 192, k1x1);
  Value b7 = basic_conv(g, name + ".branch7x7_1", x, c7, k1x1);
  b7 = basic_conv(g, name + ".branch7x7_2", b7, c7, k1x7_same);
  b7 = basic_conv(g, name + ".branch7x7_3", b7, 192, k7x1_same);
  Value d = basic_conv(g, name + ".branch7x7dbl_1", x, c7, k1x1);
  d = basic_conv(g, name + ".branch7x7dbl_2", d, c7, k7x1_same);
  d = basic_conv(g, name + ".branch7x7dbl_3", d, c7, k1x7_same);
  d = basic_conv(g, name + ".branch7x7dbl_4", d, c7, k7x1_same);
  d = basic_conv(g, name + ".branch7x7dbl_5", d, 192, k1x7_same);
  return g.concat(name + ".cat", {b1, b7, d, pool_branch(g, name, x, 192)});
}

Value inception_d(GraphBuilder& g, const std::string& name, Value x) {
  Value b3 = basic_conv(g, name + ".branch3x3_1", x, 192, k1x1);
  b3 = basic_conv(g, name + ".branch3x3_2", b3, 320, k3x3_stride2);
  Value b7 = basic_conv(g, name + ".branch7x7x3_1", x, 192, k1x1);
  b7 = basic_conv(g, name + ".branch7x7x3_2", b7, 192, k1x7_same);
  b7 = basic_conv(g, name + ".branch7x7x3_3", b7, 192, k7x1_same);
  b7 = basic_conv(g, name + ".branch7x7x3_4", b7, 192, k3x3_stride2);
  return g.concat(name + ".cat", {b3, b7, g.max_pool2d(name + ".max_pool", x, 3, 2, 0)});
}

// A 1x3 and a 3x1 convolution of the same input, side by side.
Value split_1x3_3x1(GraphBuilder& g, const std::string& name, Value x) {
  const Value a = basic_conv(g, name + "a", x, 384, k1x3_same);
  const Value b = basic_conv(g, name + "b", x, 384, k3x1_same);
  return g.concat(name + ".cat", {a, b});
}

Value inception_e(GraphBuilder& g, const std::string& name, Value x) {
  const Value b1 = basic_conv(g, name + ".branch1x1", x, 320, k1x1);
  const Value b3 =
      split_1x3_3x1(g, name + ".branch3x3_2", basic_conv(g, name + ".branch3x3_1", x, 384, k1x1));
  Value d = basic_conv(g, name + ".branch3x3dbl_1", x, 448, k1x1);
  d = basic_conv(g, name + ".branch3x3dbl_2", d, 384, k3x3_same);
  d = split_1x3_3x1(g, name + ".branch3x3dbl_3", d);
  return g.concat(name + ".cat", {b1, b3, d, pool_branch(g, name, x, 192)});
}

}  // namespace

std::shared_ptr<const Graph> inception_v3(int num_classes) {
  GraphBuilder g(/*input_channels=*/3);
  // trunc_normal_(std=0.1, a=-2, b=2) for every Conv2d and Linear weight; fc keeps nn's bias.
  g.init_convs({WeightInit::Weight::kTruncatedNormal, 0.1f});
  g.init_linears({WeightInit::Weight::kTruncatedNormal, 0.1f});
  Value x = basic_conv(g, "Conv2d_1a_3x3", g.input(), 32, k3x3_stride2);
  x = basic_conv(g, "Conv2d_2a_3x3", x, 32, k3x3);
  x = basic_conv(g, "Conv2d_2b_3x3", x, 64, k3x3_same);
  x = g.max_pool2d("maxpool1", x, 3, 2, 0);
  x = basic_conv(g, "Conv2d_3b_1x1", x, 80, k1x1);
  x = basic_conv(g, "Conv2d_4a_3x3", x, 192, k3x3);
  x = g.max_pool2d("maxpool2", x, 3, 2, 0);
  x = inception_a(g, "Mixed_5b", x, 32);
  x = inception_a(g, "Mixed_5c", x, 64);
  x = inception_a(g, "Mixed_5d", x, 64);
  x = inception_b(g, "Mixed_6a", x);
  x = inception_c(g, "Mixed_6b", x, 128);
  x = inception_c(g, "Mixed_6c", x, 160);
  x = inception_c(g, "Mixed_6d", x, 160);
  x = inception_c(g, "Mixed_6e", x, 192);
  x = inception_d(g, "Mixed_7a", x);
  x = inception_e(g, "Mixed_7b", x);
  x = inception_e(g, "Mixed_7c", x);
  x = g.dropout("dropout", g.global_avg_pool_flatten("avgpool", x), 0.5f);
  g.linear("fc", x, num_classes);
  return g.finish();
}

}  // namespace xtrain
