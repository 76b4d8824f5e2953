#include "models/shufflenet_v2.h"

#include <array>
#include <string>

#include "lib/graph/graph_builder.h"

namespace xtrain {
namespace {

constexpr int kShuffleGroups = 2;
constexpr int kStageRepeats[] = {4, 8, 4};

// InvertedResidual.depthwise_conv: a 3x3 convolution with groups = channels, no bias.
Value depthwise_conv(GraphBuilder& g, const std::string& name, Value x, int stride) {
  return g.conv2d(name, x, g.channels(x), 3, stride, 1, /*bias=*/false, /*groups=*/g.channels(x));
}

// branch2: 1x1 conv, BN, ReLU, depthwise 3x3, BN, 1x1 conv, BN, ReLU (indices as its
// Sequential's; the ReLUs at 2 and 7 are fused into the BatchNorms before them).
Value branch2(GraphBuilder& g, const std::string& name, Value x, int features, int stride) {
  x = g.batchnorm_relu(name + ".1", g.conv2d(name + ".0", x, features, 1));
  x = g.batchnorm(name + ".4", depthwise_conv(g, name + ".3", x, stride));
  return g.batchnorm_relu(name + ".6", g.conv2d(name + ".5", x, features, 1));
}

// InvertedResidual: at stride 1, x.chunk(2, dim=1) into x1 and x2 and cat(x1, branch2(x2)); at
// stride 2, cat(branch1(x), branch2(x)); then channel_shuffle(out, 2).
Value inverted_residual(GraphBuilder& g, const std::string& name, Value x, int out_channels,
                        int stride) {
  const int features = out_channels / 2;
  if (stride == 1) {
    const Value x1 = g.channel_slice(name + ".chunk.0", x, 0, features);
    const Value x2 = g.channel_slice(name + ".chunk.1", x, features, features);
    return g.channel_shuffle(name + ".shuffle",
                             {x1, branch2(g, name + ".branch2", x2, features, 1)}, kShuffleGroups);
  }
  // branch1: depthwise 3x3, BN, 1x1 conv, BN, ReLU.
  Value b1 = g.batchnorm(name + ".branch1.1", depthwise_conv(g, name + ".branch1.0", x, stride));
  b1 = g.batchnorm_relu(name + ".branch1.3", g.conv2d(name + ".branch1.2", b1, features, 1));
  const Value b2 = branch2(g, name + ".branch2", x, features, stride);
  return g.channel_shuffle(name + ".shuffle", {b1, b2}, kShuffleGroups);
}

// stages_out_channels: the stem's, stage2-4's and conv5's.
std::shared_ptr<const Graph> shufflenet_v2(const std::array<int, 5>& channels, int num_classes) {
  GraphBuilder g(/*input_channels=*/3);
  Value x = g.batchnorm_relu("conv1.1", g.conv2d("conv1.0", g.input(), channels[0], 3, 2, 1));
  x = g.max_pool2d("maxpool", x, 3, 2, 1);
  for (int stage = 0; stage < 3; ++stage) {
    const std::string name = "stage" + std::to_string(stage + 2);
    for (int i = 0; i < kStageRepeats[stage]; ++i) {
      x = inverted_residual(g, name + "." + std::to_string(i), x, channels[stage + 1],
                            i == 0 ? 2 : 1);
    }
  }
  x = g.batchnorm_relu("conv5.1", g.conv2d("conv5.0", x, channels[4], 1));
  // forward()'s x.mean([2, 3]).
  x = g.global_avg_pool_flatten("globalpool", x);
  g.linear("fc", x, num_classes);
  return g.finish();
}

}  // namespace

std::shared_ptr<const Graph> shufflenet_v2_x0_5(int num_classes) {
  return shufflenet_v2({24, 48, 96, 192, 1024}, num_classes);
}
std::shared_ptr<const Graph> shufflenet_v2_x1_0(int num_classes) {
  return shufflenet_v2({24, 116, 232, 464, 1024}, num_classes);
}
std::shared_ptr<const Graph> shufflenet_v2_x1_5(int num_classes) {
  return shufflenet_v2({24, 176, 352, 704, 1024}, num_classes);
}
std::shared_ptr<const Graph> shufflenet_v2_x2_0(int num_classes) {
  return shufflenet_v2({24, 244, 488, 976, 2048}, num_classes);
}

}  // namespace xtrain
