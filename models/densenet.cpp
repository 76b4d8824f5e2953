#include "models/densenet.h"

#include <string>
#include <vector>

#include "lib/graph/graph_builder.h"

namespace xtrain {
namespace {

constexpr int kBottleneckWidth = 4;  // torchvision's bn_size: the 1x1 convolution's growth factor

struct DenseNetConfig {
  int growth;
  std::vector<int> block_layers;
  int stem_channels;  // num_init_features
};

// norm1, relu1, conv1 (1x1), norm2, relu2, conv2 (3x3) over the concatenation of `features`,
// which norm1 reads part by part: no layer copies the growing concatenation.
Value dense_layer(GraphBuilder& g, const std::string& name, const std::vector<Value>& features,
                  int growth) {
  Value x = g.batchnorm_relu(name + ".norm1", features);
  x = g.conv2d(name + ".conv1", x, kBottleneckWidth * growth, 1);
  x = g.batchnorm_relu(name + ".norm2", x);
  return g.conv2d(name + ".conv2", x, growth, 3, 1, 1);
}

// The block's input and every layer's output: their concatenation is the block's output.
std::vector<Value> dense_block(GraphBuilder& g, const std::string& name, Value x, int layers,
                               int growth) {
  std::vector<Value> features{x};
  for (int i = 1; i <= layers; ++i) {
    features.push_back(dense_layer(g, name + ".denselayer" + std::to_string(i), features, growth));
  }
  return features;
}

// norm, relu (over the block's features), conv (1x1, half the channels), pool (2x2 average).
Value transition(GraphBuilder& g, const std::string& name, const std::vector<Value>& features) {
  Value x = g.batchnorm_relu(name + ".norm", features);
  x = g.conv2d(name + ".conv", x, g.channels(x) / 2, 1);
  return g.avg_pool2d(name + ".pool", x, 2, 2);
}

std::shared_ptr<const Graph> densenet(const DenseNetConfig& config, int num_classes) {
  GraphBuilder g(/*input_channels=*/3);
  g.init_convs({WeightInit::Weight::kKaimingNormalFanIn});
  g.init_linears({WeightInit::Weight::kTorchDefault, 0.0f, /*zero_bias=*/true});
  Value x = g.conv2d("features.conv0", g.input(), config.stem_channels, 7, 2, 3);
  x = g.batchnorm_relu("features.norm0", x);
  x = g.max_pool2d("features.pool0", x, 3, 2, 1);
  const int blocks = static_cast<int>(config.block_layers.size());
  std::vector<Value> features;
  for (int b = 1; b <= blocks; ++b) {
    const std::string block = std::to_string(b);
    features =
        dense_block(g, "features.denseblock" + block, x, config.block_layers[b - 1], config.growth);
    if (b < blocks) x = transition(g, "features.transition" + block, features);
  }
  x = g.batchnorm_relu("features.norm5", features);  // and forward()'s F.relu after it
  g.linear("classifier", g.global_avg_pool_flatten("avgpool", x), num_classes);
  return g.finish();
}

}  // namespace

std::shared_ptr<const Graph> densenet121(int num_classes) {
  return densenet({32, {6, 12, 24, 16}, 64}, num_classes);
}
std::shared_ptr<const Graph> densenet161(int num_classes) {
  return densenet({48, {6, 12, 36, 24}, 96}, num_classes);
}
std::shared_ptr<const Graph> densenet169(int num_classes) {
  return densenet({32, {6, 12, 32, 32}, 64}, num_classes);
}
std::shared_ptr<const Graph> densenet201(int num_classes) {
  return densenet({32, {6, 12, 48, 32}, 64}, num_classes);
}

}  // namespace xtrain
