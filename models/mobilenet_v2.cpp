#include "models/mobilenet_v2.h"

#include <string>

#include "lib/graph/graph_builder.h"

namespace xtrain {
namespace {

// Conv2dNormActivation(activation_layer=nn.ReLU6), PyTorch's BatchNorm defaults.
Value conv_bn_relu6(GraphBuilder& g, const std::string& name, Value x, int out_channels,
                    int kernel_size, int stride = 1, int groups = 1) {
  return g.conv_norm_activation(name, x, out_channels, kernel_size, stride, groups,
                                BatchNorm2d::Fused::kReLU6);
}

// InvertedResidual: expand (unless expand_ratio is 1), depthwise, project; x + block(x) where
// the stride is 1 and the channels stay.
Value inverted_residual(GraphBuilder& g, const std::string& name, Value x, int out_channels,
                        int stride, int expand_ratio) {
  const int in_channels = g.channels(x);
  const int hidden = in_channels * expand_ratio;
  int index = 0;
  const auto layer = [&] { return name + ".conv." + std::to_string(index++); };
  Value out = x;
  if (expand_ratio != 1) out = conv_bn_relu6(g, layer(), out, hidden, 1);
  out = conv_bn_relu6(g, layer(), out, hidden, 3, stride, /*groups=*/hidden);
  out = g.conv2d(layer(), out, out_channels, 1);
  out = g.batchnorm(layer(), out);
  if (stride == 1 && in_channels == out_channels) return g.add(x, out);
  return out;
}

// torchvision's inverted_residual_setting: expansion t, output channels c, blocks n, stride s
// of the first block.
struct Stage {
  int t, c, n, s;
};
constexpr Stage kStages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                             {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
constexpr int kStemChannels = 32;
constexpr int kLastChannels = 1280;
constexpr float kDropout = 0.2f;

std::string feature(int index) { return "features." + std::to_string(index); }

}  // namespace

std::shared_ptr<const Graph> mobilenet_v2(int num_classes) {
  GraphBuilder g(/*input_channels=*/3);
  g.init_convs(WeightInit::kaiming_normal_fan_out());
  g.init_linears({WeightInit::Weight::kNormal, 0.01f, /*zero_bias=*/true});
  int index = 0;
  Value x = conv_bn_relu6(g, feature(index++), g.input(), kStemChannels, 3, 2);
  for (const Stage& stage : kStages) {
    for (int i = 0; i < stage.n; ++i) {
      x = inverted_residual(g, feature(index++), x, stage.c, i == 0 ? stage.s : 1, stage.t);
    }
  }
  x = conv_bn_relu6(g, feature(index), x, kLastChannels, 1);
  // forward()'s adaptive_avg_pool2d(x, (1, 1)) and flatten.
  x = g.global_avg_pool_flatten("avgpool", x);
  x = g.dropout("classifier.0", x, kDropout);
  g.linear("classifier.1", x, num_classes);
  return g.finish();
}

}  // namespace xtrain
