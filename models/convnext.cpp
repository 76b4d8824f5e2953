#include "models/convnext.h"

#include <string>
#include <vector>

#include "lib/graph/graph_builder.h"

namespace xtrain {
namespace {

// partial(LayerNorm2d, eps=1e-6) and the blocks' partial(nn.LayerNorm, eps=1e-6).
constexpr float kLayerNormEps = 1e-6f;
// CNBlock's layer_scale: the branch starts out nearly silent.
constexpr float kLayerScale = 1e-6f;

std::string feature(int index) { return "features." + std::to_string(index); }

// CNBlock: x + stochastic_depth(layer_scale * block(x)), block = depthwise 7x7 (with bias),
// Permute, LayerNorm, Linear(C, 4C), GELU, Linear(4C, C), Permute; the permutes are no-ops on
// NHWC values, so block.1 and block.6 have no layer. The layer scale is a tensor of the block
// itself (<name>). The stochastic depth of p = 0 (the first block's) is the identity, not built.
Value cn_block(GraphBuilder& g, const std::string& name, Value x, double stochastic_depth_prob) {
  const int channels = g.channels(x);
  Value out = g.conv2d(name + ".block.0", x, channels, 7, 1, 3, /*bias=*/true, /*groups=*/channels);
  out = g.layer_norm(name + ".block.2", out, kLayerNormEps);
  out = g.activation(g.pointwise_linear(name + ".block.3", out, 4 * channels),
                     kernels::Activation::kGELU);
  out = g.pointwise_linear(name + ".block.5", out, channels);
  out = g.layer_scale(name, out, kLayerScale);
  if (stochastic_depth_prob > 0.0) {
    out = g.stochastic_depth(name + ".stochastic_depth", out, stochastic_depth_prob);
  }
  return g.add(out, x);
}

// CNBlockConfig: a stage's width and depth; each stage but the last is followed by a
// downsampling to the next one's width.
struct Stage {
  int channels, blocks;
};

// stochastic_depth_prob is the last block's; torchvision's ramps it linearly from 0 at the first.
std::shared_ptr<const Graph> convnext(const std::vector<Stage>& stages,
                                      double stochastic_depth_prob, int num_classes) {
  GraphBuilder g(/*input_channels=*/3);
  const WeightInit init{WeightInit::Weight::kTruncatedNormal, 0.02f, /*zero_bias=*/true};
  g.init_convs(init);
  g.init_linears(init);
  int index = 0;
  // Conv2dNormActivation(3, C, kernel_size=4, stride=4, padding=0, LayerNorm2d, no activation,
  // bias=True).
  const std::string stem = feature(index++);
  Value x = g.conv2d(stem + ".0", g.input(), stages[0].channels, 4, 4, 0, /*bias=*/true);
  x = g.layer_norm(stem + ".1", x, kLayerNormEps);
  int total_blocks = 0;
  for (const Stage& s : stages) total_blocks += s.blocks;
  int block_id = 0;
  for (size_t s = 0; s < stages.size(); ++s) {
    const std::string stage = feature(index++);
    for (int b = 0; b < stages[s].blocks; ++b) {
      // torchvision's sd_prob: stochastic_depth_prob * stage_block_id / (total_stage_blocks - 1.0).
      const double p = stochastic_depth_prob * block_id++ / (total_blocks - 1.0);
      x = cn_block(g, stage + "." + std::to_string(b), x, p);
    }
    if (s + 1 == stages.size()) break;
    const std::string downsample = feature(index++);
    x = g.layer_norm(downsample + ".0", x, kLayerNormEps);
    x = g.conv2d(downsample + ".1", x, stages[s + 1].channels, 2, 2, 0, /*bias=*/true);
  }
  // forward()'s avgpool, then the classifier: LayerNorm2d over the 1x1 map, Flatten, Linear.
  x = g.global_avg_pool_flatten("avgpool", x);
  x = g.layer_norm("classifier.0", x, kLayerNormEps);
  g.linear("classifier.2", x, num_classes);
  return g.finish();
}

}  // namespace

std::shared_ptr<const Graph> convnext_tiny(int num_classes) {
  return convnext({{96, 3}, {192, 3}, {384, 9}, {768, 3}}, 0.1, num_classes);
}

std::shared_ptr<const Graph> convnext_small(int num_classes) {
  return convnext({{96, 3}, {192, 3}, {384, 27}, {768, 3}}, 0.4, num_classes);
}

std::shared_ptr<const Graph> convnext_base(int num_classes) {
  return convnext({{128, 3}, {256, 3}, {512, 27}, {1024, 3}}, 0.5, num_classes);
}

std::shared_ptr<const Graph> convnext_large(int num_classes) {
  return convnext({{192, 3}, {384, 3}, {768, 27}, {1536, 3}}, 0.5, num_classes);
}

}  // namespace xtrain
