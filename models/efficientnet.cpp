#include "models/efficientnet.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "lib/graph/graph_builder.h"
#include "models/make_divisible.h"

namespace xtrain {
namespace {

// EfficientNet's stochastic_depth_prob: the last block's, the first block's being 0.
constexpr double kStochasticDepthProb = 0.2;
constexpr int kStemStride = 2;

// The norm_layer a model's builder passes: its eps and momentum.
struct Norm {
  float eps = 1e-5f;
  float momentum = 0.1f;
};

// One row of _efficientnet_conf's inverted_residual_setting: an MBConvConfig, or a
// FusedMBConvConfig where fused; channels and layers already scaled by the width and depth
// multipliers.
struct Stage {
  bool fused;
  double expand_ratio;
  int kernel, stride, in, out, layers;
};

constexpr auto kSiLU = BatchNorm2d::Fused::kSiLU;
constexpr auto kNone = BatchNorm2d::Fused::kNothing;

// The model being built: the builder, its norm layer and the stochastic depth schedule.
struct Builder {
  GraphBuilder g{/*input_channels=*/3};
  Norm norm;
  int total_blocks = 0;
  int block_id = 0;

  // Conv2dNormActivation with the model's norm layer.
  Value conv_bn_act(const std::string& name, Value x, int out, int kernel, int stride, int groups,
                    BatchNorm2d::Fused act) {
    return g.conv_norm_activation(name, x, out, kernel, stride, groups, act, norm.eps,
                                  norm.momentum);
  }

  // SqueezeExcitation(channels, squeeze, activation=SiLU): x * sigmoid(fc2(silu(fc1(avgpool(x))))),
  // fc1 and fc2 1x1 convolutions with biases over the pooled 1x1 grid.
  Value squeeze_excitation(const std::string& name, Value x, int squeeze) {
    Value scale = g.adaptive_avg_pool2d(name + ".avgpool", x, 1, 1);
    scale = g.conv2d(name + ".fc1", scale, squeeze, 1, 1, 0, /*bias=*/true);
    scale = g.activation(scale, kernels::Activation::kSiLU);
    scale = g.conv2d(name + ".fc2", scale, g.channels(x), 1, 1, 0, /*bias=*/true);
    scale = g.activation(scale, kernels::Activation::kSigmoid);
    return g.channel_scale(x, scale);
  }

  // MBConv or FusedMBConv, its layers counted in `block`; x + stochastic_depth(block(x)) where
  // the stride is 1 and the channels stay. The stochastic depth of p = 0 is the identity, not
  // built.
  Value block(const std::string& name, Value x, const Stage& s, int stride) {
    const int in = g.channels(x);
    const int expanded = make_divisible(in * s.expand_ratio);
    int index = 0;
    const auto layer = [&] { return name + ".block." + std::to_string(index++); };
    Value out = x;
    if (s.fused) {
      if (expanded != in) {
        out = conv_bn_act(layer(), out, expanded, s.kernel, stride, 1, kSiLU);
        out = conv_bn_act(layer(), out, s.out, 1, 1, 1, kNone);
      } else {
        out = conv_bn_act(layer(), out, s.out, s.kernel, stride, 1, kSiLU);
      }
    } else {
      if (expanded != in) out = conv_bn_act(layer(), out, expanded, 1, 1, 1, kSiLU);
      out = conv_bn_act(layer(), out, expanded, s.kernel, stride, expanded, kSiLU);
      out = squeeze_excitation(layer(), out, std::max(1, in / 4));
      out = conv_bn_act(layer(), out, s.out, 1, 1, 1, kNone);
    }
    // torchvision's sd_prob: stochastic_depth_prob * float(stage_block_id) / total_stage_blocks.
    const double p = kStochasticDepthProb * block_id++ / total_blocks;
    if (stride != 1 || in != s.out) return out;
    if (p > 0.0) out = g.stochastic_depth(name + ".stochastic_depth", out, p);
    return g.add(out, x);
  }
};

std::string feature(int index) { return "features." + std::to_string(index); }

// EfficientNet: the stem to the first stage's input width, the stages (a stage's first block
// takes its stride and input width, the others stride 1 at its output width), the head
// convolution to last_channel (0: four times the last stage's width), the classifier.
std::shared_ptr<const Graph> efficientnet(const std::vector<Stage>& stages, int last_channel,
                                          float dropout, Norm norm, int num_classes) {
  Builder b;
  b.norm = norm;
  GraphBuilder& g = b.g;
  g.init_convs({WeightInit::Weight::kKaimingNormalFanOut, 0.0f, /*zero_bias=*/true});
  g.init_linears({WeightInit::Weight::kUniformInvSqrtFanOut, 0.0f, /*zero_bias=*/true});
  for (const Stage& s : stages) b.total_blocks += s.layers;
  int index = 0;
  Value x = b.conv_bn_act(feature(index++), g.input(), stages.front().in, 3, kStemStride, 1, kSiLU);
  for (const Stage& s : stages) {
    const std::string stage = feature(index++);
    for (int i = 0; i < s.layers; ++i) {
      x = b.block(stage + "." + std::to_string(i), x, s, i == 0 ? s.stride : 1);
    }
  }
  const int head = last_channel > 0 ? last_channel : 4 * g.channels(x);
  x = b.conv_bn_act(feature(index), x, head, 1, 1, 1, kSiLU);
  // forward()'s avgpool and flatten.
  x = g.global_avg_pool_flatten("avgpool", x);
  x = g.dropout("classifier.0", x, dropout);
  g.linear("classifier.1", x, num_classes);
  return g.finish();
}

// _efficientnet_conf for efficientnet_b*: B0's MBConv stages with widths and depths scaled.
std::vector<Stage> v1_stages(double width_mult, double depth_mult) {
  const auto width = [&](int channels) { return make_divisible(channels * width_mult); };
  const auto depth = [&](int layers) { return static_cast<int>(std::ceil(layers * depth_mult)); };
  // expand_ratio, kernel, stride, input_channels, out_channels, num_layers
  const Stage b0[] = {{false, 1, 3, 1, 32, 16, 1},  {false, 6, 3, 2, 16, 24, 2},
                      {false, 6, 5, 2, 24, 40, 2},  {false, 6, 3, 2, 40, 80, 3},
                      {false, 6, 5, 1, 80, 112, 3}, {false, 6, 5, 2, 112, 192, 4},
                      {false, 6, 3, 1, 192, 320, 1}};
  std::vector<Stage> stages;
  for (Stage s : b0) {
    s.in = width(s.in);
    s.out = width(s.out);
    s.layers = depth(s.layers);
    stages.push_back(s);
  }
  return stages;
}

std::shared_ptr<const Graph> efficientnet_v1(double width_mult, double depth_mult, float dropout,
                                             Norm norm, int num_classes) {
  return efficientnet(v1_stages(width_mult, depth_mult), /*last_channel=*/0, dropout, norm,
                      num_classes);
}

// _efficientnet_conf for efficientnet_v2_*: FusedMBConv stages, then MBConv ones, unscaled.
constexpr bool kFused = true, kMBConv = false;
const std::vector<Stage> kV2S = {{kFused, 1, 3, 1, 24, 24, 2},    {kFused, 4, 3, 2, 24, 48, 4},
                                 {kFused, 4, 3, 2, 48, 64, 4},    {kMBConv, 4, 3, 2, 64, 128, 6},
                                 {kMBConv, 6, 3, 1, 128, 160, 9}, {kMBConv, 6, 3, 2, 160, 256, 15}};
const std::vector<Stage> kV2M = {{kFused, 1, 3, 1, 24, 24, 3},     {kFused, 4, 3, 2, 24, 48, 5},
                                 {kFused, 4, 3, 2, 48, 80, 5},     {kMBConv, 4, 3, 2, 80, 160, 7},
                                 {kMBConv, 6, 3, 1, 160, 176, 14}, {kMBConv, 6, 3, 2, 176, 304, 18},
                                 {kMBConv, 6, 3, 1, 304, 512, 5}};
const std::vector<Stage> kV2L = {{kFused, 1, 3, 1, 32, 32, 4},     {kFused, 4, 3, 2, 32, 64, 7},
                                 {kFused, 4, 3, 2, 64, 96, 7},     {kMBConv, 4, 3, 2, 96, 192, 10},
                                 {kMBConv, 6, 3, 1, 192, 224, 19}, {kMBConv, 6, 3, 2, 224, 384, 25},
                                 {kMBConv, 6, 3, 1, 384, 640, 7}};
constexpr int kV2LastChannel = 1280;

constexpr Norm kV1Norm{};                    // nn.BatchNorm2d
constexpr Norm kV1LargeNorm{0.001f, 0.01f};  // B5 to B7
constexpr Norm kV2Norm{0.001f, 0.1f};        // partial(nn.BatchNorm2d, eps=1e-03)

}  // namespace

std::shared_ptr<const Graph> efficientnet_b0(int num_classes) {
  return efficientnet_v1(1.0, 1.0, 0.2f, kV1Norm, num_classes);
}
std::shared_ptr<const Graph> efficientnet_b1(int num_classes) {
  return efficientnet_v1(1.0, 1.1, 0.2f, kV1Norm, num_classes);
}
std::shared_ptr<const Graph> efficientnet_b2(int num_classes) {
  return efficientnet_v1(1.1, 1.2, 0.3f, kV1Norm, num_classes);
}
std::shared_ptr<const Graph> efficientnet_b3(int num_classes) {
  return efficientnet_v1(1.2, 1.4, 0.3f, kV1Norm, num_classes);
}
std::shared_ptr<const Graph> efficientnet_b4(int num_classes) {
  return efficientnet_v1(1.4, 1.8, 0.4f, kV1Norm, num_classes);
}
std::shared_ptr<const Graph> efficientnet_b5(int num_classes) {
  return efficientnet_v1(1.6, 2.2, 0.4f, kV1LargeNorm, num_classes);
}
std::shared_ptr<const Graph> efficientnet_b6(int num_classes) {
  return efficientnet_v1(1.8, 2.6, 0.5f, kV1LargeNorm, num_classes);
}
std::shared_ptr<const Graph> efficientnet_b7(int num_classes) {
  return efficientnet_v1(2.0, 3.1, 0.5f, kV1LargeNorm, num_classes);
}
std::shared_ptr<const Graph> efficientnet_v2_s(int num_classes) {
  return efficientnet(kV2S, kV2LastChannel, 0.2f, kV2Norm, num_classes);
}
std::shared_ptr<const Graph> efficientnet_v2_m(int num_classes) {
  return efficientnet(kV2M, kV2LastChannel, 0.3f, kV2Norm, num_classes);
}
std::shared_ptr<const Graph> efficientnet_v2_l(int num_classes) {
  return efficientnet(kV2L, kV2LastChannel, 0.4f, kV2Norm, num_classes);
}

}  // namespace xtrain
