#include "models/mobilenet_v3.h"

#include <string>
#include <vector>

#include "lib/graph/graph_builder.h"
#include "models/make_divisible.h"

namespace xtrain {
namespace {

// MobileNetV3's norm_layer: partial(nn.BatchNorm2d, eps=0.001, momentum=0.01).
constexpr float kBatchNormEps = 0.001f;
constexpr float kBatchNormMomentum = 0.01f;
constexpr float kDropout = 0.2f;

using Act = BatchNorm2d::Fused;  // kReLU or kHardswish

// Conv2dNormActivation with MobileNetV3's BatchNorm.
Value conv_bn_act(GraphBuilder& g, const std::string& name, Value x, int out_channels,
                  int kernel_size, int stride, int groups, Act act) {
  return g.conv_norm_activation(name, x, out_channels, kernel_size, stride, groups, act,
                                kBatchNormEps, kBatchNormMomentum);
}

// SqueezeExcitation(channels, squeeze, scale_activation=Hardsigmoid): x * hardsigmoid(fc2(relu(
// fc1(avgpool(x))))), fc1 and fc2 1x1 convolutions with biases over the pooled 1x1 grid.
Value squeeze_excitation(GraphBuilder& g, const std::string& name, Value x) {
  const int channels = g.channels(x);
  const int squeeze = make_divisible(channels / 4);
  Value scale = g.adaptive_avg_pool2d(name + ".avgpool", x, 1, 1);
  scale = g.relu(g.conv2d(name + ".fc1", scale, squeeze, 1, 1, 0, /*bias=*/true));
  scale = g.conv2d(name + ".fc2", scale, channels, 1, 1, 0, /*bias=*/true);
  scale = g.activation(scale, kernels::Activation::kHardsigmoid);
  return g.channel_scale(x, scale);
}

// InvertedResidualConfig: kernel, expanded and output channels, SE, activation, stride.
struct Block {
  int kernel, expanded, out;
  bool se;
  Act act;
  int stride;
};

// InvertedResidual: expand (where the width changes), depthwise, SE, project; x + block(x)
// where the stride is 1 and the channels stay. Its layers are counted in `block`.
Value inverted_residual(GraphBuilder& g, const std::string& name, Value x, const Block& b) {
  const int in_channels = g.channels(x);
  int index = 0;
  const auto layer = [&] { return name + ".block." + std::to_string(index++); };
  Value out = x;
  if (b.expanded != in_channels) out = conv_bn_act(g, layer(), out, b.expanded, 1, 1, 1, b.act);
  out = conv_bn_act(g, layer(), out, b.expanded, b.kernel, b.stride, b.expanded, b.act);
  if (b.se) out = squeeze_excitation(g, layer(), out);
  const std::string project = layer();
  out = g.conv2d(project + ".0", out, b.out, 1);
  out = g.batchnorm(project + ".1", out, kBatchNormEps, kBatchNormMomentum);
  if (b.stride == 1 && in_channels == b.out) return g.add(x, out);
  return out;
}

constexpr Act RE = Act::kReLU;
constexpr Act HS = Act::kHardswish;

// _mobilenet_v3_conf's inverted_residual_setting (dilation 1, width 1.0); the first entry's input
// is the stem's 16 channels.
const std::vector<Block> kLarge = {
    {3, 16, 16, false, RE, 1},  {3, 64, 24, false, RE, 2},  {3, 72, 24, false, RE, 1},
    {5, 72, 40, true, RE, 2},   {5, 120, 40, true, RE, 1},  {5, 120, 40, true, RE, 1},
    {3, 240, 80, false, HS, 2}, {3, 200, 80, false, HS, 1}, {3, 184, 80, false, HS, 1},
    {3, 184, 80, false, HS, 1}, {3, 480, 112, true, HS, 1}, {3, 672, 112, true, HS, 1},
    {5, 672, 160, true, HS, 2}, {5, 960, 160, true, HS, 1}, {5, 960, 160, true, HS, 1}};
const std::vector<Block> kSmall = {
    {3, 16, 16, true, RE, 2},  {3, 72, 24, false, RE, 2}, {3, 88, 24, false, RE, 1},
    {5, 96, 40, true, HS, 2},  {5, 240, 40, true, HS, 1}, {5, 240, 40, true, HS, 1},
    {5, 120, 48, true, HS, 1}, {5, 144, 48, true, HS, 1}, {5, 288, 96, true, HS, 2},
    {5, 576, 96, true, HS, 1}, {5, 576, 96, true, HS, 1}};
constexpr int kStemChannels = 16;

std::string feature(int index) { return "features." + std::to_string(index); }

std::shared_ptr<const Graph> mobilenet_v3(const std::vector<Block>& blocks, int last_channel,
                                          int num_classes) {
  GraphBuilder g(/*input_channels=*/3);
  g.init_convs({WeightInit::Weight::kKaimingNormalFanOut, 0.0f, /*zero_bias=*/true});
  g.init_linears({WeightInit::Weight::kNormal, 0.01f, /*zero_bias=*/true});
  int index = 0;
  Value x = conv_bn_act(g, feature(index++), g.input(), kStemChannels, 3, 2, 1, HS);
  for (const Block& b : blocks) x = inverted_residual(g, feature(index++), x, b);
  x = conv_bn_act(g, feature(index), x, 6 * g.channels(x), 1, 1, 1, HS);
  // forward()'s avgpool and flatten.
  x = g.global_avg_pool_flatten("avgpool", x);
  x = g.activation(g.linear("classifier.0", x, last_channel), kernels::Activation::kHardswish);
  x = g.dropout("classifier.2", x, kDropout);
  g.linear("classifier.3", x, num_classes);
  return g.finish();
}

}  // namespace

std::shared_ptr<const Graph> mobilenet_v3_large(int num_classes) {
  return mobilenet_v3(kLarge, /*last_channel=*/1280, num_classes);
}

std::shared_ptr<const Graph> mobilenet_v3_small(int num_classes) {
  return mobilenet_v3(kSmall, /*last_channel=*/1024, num_classes);
}

}  // namespace xtrain
