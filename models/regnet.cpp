#include "models/regnet.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "lib/base/check.h"
#include "lib/graph/graph_builder.h"
#include "models/make_divisible.h"

namespace xtrain {
namespace {

constexpr int kQuantum = 8;  // block widths are multiples of 8
constexpr int kStemWidth = 32;

using Act = BatchNorm2d::Fused;

// ResBottleneckBlock (bottleneck multiplier 1): relu(proj(x) + f(x)), proj a strided 1x1
// convolution and BatchNorm where the width or the grid changes, else x itself.
Value res_bottleneck_block(GraphBuilder& g, const std::string& name, Value x, int width, int stride,
                           int group_width) {
  Value shortcut = x;
  if (g.channels(x) != width || stride != 1) {
    shortcut = g.batchnorm(name + ".proj.1", g.conv2d(name + ".proj.0", x, width, 1, stride));
  }
  Value out = g.conv_norm_activation(name + ".f.a", x, width, 1, 1, 1, Act::kReLU);
  out =
      g.conv_norm_activation(name + ".f.b", out, width, 3, stride, width / group_width, Act::kReLU);
  out = g.conv2d(name + ".f.c.0", out, width, 1);
  return g.batchnorm_add_relu(name + ".f.c.1", out, shortcut);
}

std::shared_ptr<const Graph> regnet(const RegNetDesign& design, int num_classes) {
  GraphBuilder g(/*input_channels=*/3);
  g.init_convs(WeightInit::kaiming_normal_fan_out());
  g.init_linears({WeightInit::Weight::kNormal, 0.01f, /*zero_bias=*/true});
  // SimpleStemIN: Conv2dNormActivation(3, 32, kernel_size=3, stride=2).
  Value x = g.conv_norm_activation("stem", g.input(), kStemWidth, 3, 2, 1, Act::kReLU);
  const std::vector<RegNetStage> stages = regnet_stages(design);
  for (size_t s = 0; s < stages.size(); ++s) {
    const std::string stage = "block" + std::to_string(s + 1);
    for (int i = 0; i < stages[s].depth; ++i) {
      x = res_bottleneck_block(g, "trunk_output." + stage + "." + stage + "-" + std::to_string(i),
                               x, stages[s].width, i == 0 ? 2 : 1, stages[s].group_width);
    }
  }
  x = g.global_avg_pool_flatten("avgpool", x);
  g.linear("fc", x, num_classes);
  return g.finish();
}

}  // namespace

// from_init_params' arithmetic in float32, as its torch tensors compute it: block i's width
// w_0 + i * w_a is snapped to w_0 * w_m^k for the nearest whole k (in log space) and quantized to
// a multiple of 8; a run of equal widths is a stage; each stage's group width is cut to the
// width where wider, and the width moved to a multiple of the group width.
std::vector<RegNetStage> regnet_stages(const RegNetDesign& d) {
  XTRAIN_CHECK(d.w_a >= 0 && d.w_0 > 0 && d.w_m > 1 && d.w_0 % kQuantum == 0,
               "invalid RegNet settings w_0={} w_a={} w_m={}", d.w_0, d.w_a, d.w_m);
  const float w_0 = static_cast<float>(d.w_0);
  const float w_a = static_cast<float>(d.w_a);
  const float w_m = static_cast<float>(d.w_m);
  const float log_w_m = static_cast<float>(std::log(d.w_m));  // math.log, then a float32 scalar
  std::vector<RegNetStage> stages;
  for (int i = 0; i < d.depth; ++i) {
    const float width_cont = static_cast<float>(i) * w_a + w_0;
    const float capacity = std::nearbyint(std::log(width_cont / w_0) / log_w_m);
    const int width =
        static_cast<int>(std::nearbyint(w_0 * std::pow(w_m, capacity) / kQuantum)) * kQuantum;
    if (stages.empty() || stages.back().width != width) stages.push_back({0, width, 0});
    ++stages.back().depth;
  }
  for (RegNetStage& stage : stages) {
    stage.group_width = std::min(d.group_width, stage.width);
    stage.width = make_divisible(stage.width, stage.group_width);
  }
  return stages;
}

// torchvision's regnet_x_* builders' from_init_params arguments.
std::shared_ptr<const Graph> regnet_x_400mf(int num_classes) {
  return regnet({22, 24, 24.48, 2.54, 16}, num_classes);
}
std::shared_ptr<const Graph> regnet_x_800mf(int num_classes) {
  return regnet({16, 56, 35.73, 2.28, 16}, num_classes);
}
std::shared_ptr<const Graph> regnet_x_1_6gf(int num_classes) {
  return regnet({18, 80, 34.01, 2.25, 24}, num_classes);
}
std::shared_ptr<const Graph> regnet_x_3_2gf(int num_classes) {
  return regnet({25, 88, 26.31, 2.25, 48}, num_classes);
}
std::shared_ptr<const Graph> regnet_x_8gf(int num_classes) {
  return regnet({23, 80, 49.56, 2.88, 120}, num_classes);
}
std::shared_ptr<const Graph> regnet_x_16gf(int num_classes) {
  return regnet({22, 216, 55.59, 2.1, 128}, num_classes);
}
std::shared_ptr<const Graph> regnet_x_32gf(int num_classes) {
  return regnet({23, 320, 69.86, 2.0, 168}, num_classes);
}

}  // namespace xtrain
